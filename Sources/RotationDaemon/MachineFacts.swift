import Glibc
import RotationSensors
import RotationSystem

/// What a report says about the machine: what the hwdb matches a mount matrix on (the DMI modalias, or a device
/// tree's compatible strings on a board without DMI), its maker and model, and the kernel.
struct MachineFacts {
    /// `/sys/class/dmi/id/modalias`, which the hwdb's `sensor:modalias:` matches; nil without DMI.
    let modalias: String?
    /// The device tree's compatible strings, most specific first; empty without a device tree.
    let compatible: [String]
    /// The DMI maker and product, such as "LENOVO 20QF"; nil without DMI.
    let product: String?
    /// `uname`: system, release, version and machine.
    let kernel: String

    /// Reads them from sysfs and `uname`.
    static func read() -> MachineFacts {
        func file(_ path: String) -> String? {
            // Line ends, and the NUL that ends a device tree's last string.
            guard let text = (try? TextFile.read(path))?.trimmed(" \t\n\r\0"), !text.isEmpty else { return nil }
            return text
        }
        let compatible = (file("/proc/device-tree/compatible") ?? "").split(separator: "\0").map(String.init)
        let product = [file("/sys/class/dmi/id/sys_vendor"), file("/sys/class/dmi/id/product_name")].compactMap { $0 }
        var u = utsname()
        uname(&u)
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        return MachineFacts(modalias: file(HwdbKey.dmiPath), compatible: compatible,
                            product: product.isEmpty ? nil : product.joined(separator: " "),
                            kernel: [field(u.sysname), field(u.release), field(u.version), field(u.machine)].joined(separator: " "))
    }

    /// The report's `machine.txt`: one labelled line each.
    var text: String {
        """
        dmi modalias: \(modalias ?? "none (no /sys/class/dmi/id/modalias)")
        device-tree compatible: \(compatible.isEmpty ? "none" : compatible.joined(separator: " "))
        product: \(product ?? "unknown")
        kernel: \(kernel)

        """
    }
}

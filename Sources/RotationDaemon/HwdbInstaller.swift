import Glibc
import RotationSensors
import RotationSystem

/// Where and how `rotationd --fix-mount` installs its entries: the local hwdb file under a root directory (`/`,
/// or a scratch root from `ROTATIOND_ROOT`), written atomically, then systemd-hwdb and udevadm; and what the
/// installed database gives a sensor back.
///
/// Under a root other than `/` the database is compiled there (`systemd-hwdb --root`) and read back from it
/// (`systemd-hwdb --root ... query`); udev, which serves the running system, is left alone.
struct HwdbInstaller {
    /// The root directory the file goes under.
    let root: String

    /// The root from `ROTATIOND_ROOT`, else `/`.
    static func fromEnvironment() -> HwdbInstaller {
        let given = getenv("ROTATIOND_ROOT").map { String(cString: $0) } ?? ""
        return HwdbInstaller(root: given.isEmpty ? "/" : given)
    }

    /// Whether this installs into the running system.
    var live: Bool { root == "/" }

    /// The directory of the file.
    var directory: String { (live ? "" : root) + HwdbFile.directory }

    /// The file.
    var path: String { directory + "/" + HwdbFile.name }

    /// The file's text now, or empty when there is none.
    func existing() -> String { (try? TextFile.read(path)) ?? "" }

    /// systemd-hwdb, compiling the database.
    var update: ChildCommand { ChildCommand(argv: ["systemd-hwdb"] + (live ? [] : ["--root", root]) + ["update"]) }

    /// udevadm, applying the database to `device` and waiting until udev has.
    func trigger(_ device: String) -> ChildCommand {
        ChildCommand(argv: ["udevadm", "trigger", "--verbose", "--action=change", "--settle", "/sys/bus/iio/devices/\(device)"])
    }

    /// systemd-hwdb, printing what the database gives `key`.
    func query(_ key: String) -> ChildCommand {
        ChildCommand(argv: ["systemd-hwdb"] + (live ? [] : ["--root", root]) + ["query", key])
    }

    /// Writes `text` as the file, atomically (`AtomicFile`, mode 0644), creating its directories. The file is in
    /// place once renamed: a directory that cannot be synced afterwards is no failure.
    func write(_ text: String) throws(MountFixError) {
        do { try Directory.make(directory) } catch { throw .write(Self.failure("create the directory", error.path, error.errno)) }
        do { try AtomicFile.write(Array(text.utf8), name: HwdbFile.name, in: directory, mode: 0o644) } catch {
            switch error.step {
            case .create: throw .write(Self.failure("create a file in", directory, error.errno))
            case .write, .sync, .rename: throw .write(Self.failure("write", path, error.errno))
            case .openDirectory, .syncDirectory: break
            }
        }
    }

    /// Runs `command`, throwing when it fails.
    func run(_ command: ChildCommand) throws(MountFixError) {
        let (status, output) = command.run()
        guard status == 0 else { throw .command(command.text, status: status, output: output) }
    }

    /// The mount matrix the installed database gives the sensor of `entry` now, and where it came from: under a
    /// scratch root, systemd-hwdb's answer for its key; live, the sensor's matrix as rotationd finds it through
    /// udev.
    func installedMatrix(_ entry: HwdbEntry, device: String) throws(MountFixError) -> (matrix: MountMatrix?, source: String) {
        if !live {
            let command = query(entry.key.lookup)
            let (status, output) = command.run()
            guard status == 0 else { throw .command(command.text, status: status, output: output) }
            let line = output.split(separator: "\n").first { $0.hasPrefix("ACCEL_MOUNT_MATRIX=") }
            let matrix = line.flatMap { try? MountMatrix.parse(String($0.dropFirst("ACCEL_MOUNT_MATRIX=".count))) }
            return (matrix, "the database under \(root) (systemd-hwdb query)")
        }
        let inventory: SensorInventory
        do { inventory = try SensorDiscovery.scan(rate: 50) } catch { throw .discovery(error) }
        guard let sensor = inventory.accelerometers.first(where: { $0.id == device }) else { return (nil, "nothing: \(device) is gone") }
        return (sensor.calibration.matrix, sensor.calibration.matrixSource)
    }

    /// The error of a failed system call on `path`, with a fix for a lack of permission.
    static func failure(_ operation: String, _ path: String, _ e: Errno) -> SystemError {
        SystemError(operation: operation, path: path, errno: e,
                    fix: [.permissionDenied, .notPermitted, .readOnlyFileSystem].contains(e) ? "run as root (sudo rotationd --fix-mount)" : nil)
    }
}

import RotationSensors
import RotationSystem

/// Why `rotationd --fix-mount` stopped, and how to get past it.
enum MountFixError: Error, Sendable, CustomStringConvertible {
    /// No accelerometer was found (`rejected` lists the ones that cannot be used, and why).
    case noAccelerometer(rejected: [String])
    /// Discovery itself failed.
    case discovery(SensorError)
    /// The sensor has no raw attributes to read.
    case noRaw(device: String, name: String)
    /// A raw read was refused because another program runs the device's buffer.
    case busy(device: String, path: String)
    /// Another read of the sensor failed.
    case read(SensorError)
    /// udev looks up no hwdb entry for the sensor.
    case noKey(HwdbKey.Missing)
    /// The poses of a sensor gave no matrix.
    case poses(device: String, MountPoseError)
    /// A pose was not held within the time allowed.
    case notHeld(pose: String, name: String, seconds: Int, waitingFor: String)
    /// Installing needs root, and `--yes` asked for it.
    case notRoot(path: String)
    /// The file could not be written.
    case write(SystemError)
    /// A command failed or could not be run.
    case command(String, status: Int32, output: String)
    /// After the install, the sensor's matrix is not the one written.
    case notApplied(device: String, expected: String, got: String, key: String)
    /// After the install, the device never read the pose it was held in.
    case checkFailed(pose: String, reads: String)

    /// What failed and how to fix it.
    var description: String {
        switch self {
        case .noAccelerometer(let rejected):
            return "no accelerometer found: looked for \(SensorDiscovery.lookingFor)"
                + (rejected.isEmpty ? "; rotationd --list shows what there is" : "; found but unusable: " + rejected.joined(separator: "; "))
        case .discovery(let e):
            return e.description
        case .noRaw(let device, let name):
            return "\(device) (\(name)) offers its readings through its buffer only (no in_accel_*_raw), which this guide does not read; stop rotationd, record the poses with rotationd --record and work the matrix out as Docs/hwdb-quirks.md shows"
        case .busy(let device, let path):
            return "cannot read \(path): the device is busy (EBUSY): another program runs the buffer of \(device), and its driver refuses raw reads meanwhile; stop that program for the minute this takes (iio-sensor-proxy: systemctl stop iio-sensor-proxy; rotationd itself never holds such a buffer) and run again"
        case .read(let e):
            return e.description
        case .noKey(let missing):
            return missing.description
        case .poses(let device, let e):
            return "\(device): \(e)"
        case .notHeld(let pose, let name, let seconds, let waitingFor):
            return "\(pose) (\(name)) was not held within \(seconds) s: still waiting for \(waitingFor); run again, and hold each pose still until its bar is full"
        case .notRoot(let path):
            return "writing \(path) and reloading udev need root: run sudo rotationd --fix-mount, or run the commands above as root"
        case .write(let e):
            return e.description
        case .command(let command, let status, let output):
            let said = output.split(separator: "\n").suffix(3).joined(separator: " | ")
            if status == 127 { return "cannot run \(command): not found; systemd-hwdb and udevadm come with udev (Debian: apt install udev)" }
            return "\(command) failed with status \(status)" + (said.isEmpty ? "" : ": \(said)")
        case .notApplied(let device, let expected, let got, let key):
            return "the entry was installed, but \(device) now has \(got) instead of \(expected): udev did not apply it; check that its match line matches the key \(key) (systemd-hwdb query '\(key)' prints what the database gives it, udevadm info /sys/bus/iio/devices/\(device) what udev gave the device)"
        case .checkFailed(let pose, let reads):
            return "with the new matrix the device read \(reads) where it was asked to be held \(pose): the entry is installed but does not put it right; run rotationd --fix-mount again, turning the device as each pose asks"
        }
    }
}

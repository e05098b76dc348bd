import Glibc
import CIIO
import RotationEngine

/// One capture from an opened accelerometer (and gyroscope) until it stops, fails or the device goes away: the
/// one place that chooses how the part is read.
///
/// Runs on the `SensorSource` thread and owns nothing beyond that run: the context belongs to the session.
/// The modes, each a type of its own, share the part (`CapturedPart`):
/// - `BufferedCapture`: the buffer, read in batches (`BatchReader`) at a pace that follows the sampling policy;
/// - `PolledCapture`: the raw attributes at the configured rate, when the buffer cannot run or is not ours;
/// - while still, in either: `EventWatch` (the part's motion event armed, nothing read until it fires) where
///   the driver offers one, `AxisGlance` (one axis per read interval) for a polled part whose raw reads sleep in
///   the driver, else a read (or a batch) at the still pace.
///
/// Everything written is put back when the capture ends (`PartSettings`).
final class SensorCapture {
    /// How a capture (or a discovery) ended.
    enum Outcome: Error {
        /// `stop()` was called.
        case stopped
        /// No usable sensor; the message says what was looked for.
        case absent(String)
        /// The sensor failed or went away.
        case failed(SensorError)
        /// Buffered capture is not possible; poll instead.
        case fallBack
    }

    /// How a still mode ended.
    enum StillEnd {
        /// The device moved: read it at the full rate, for `motionHold` at least.
        case moved
        /// The capture ends.
        case ended(Outcome)
        /// The part cannot watch for motion: read it at the still pace.
        case unavailable
    }

    private let part: CapturedPart
    private let events: EventWatch

    init(source: SensorSource, context: IIOContext, device: OpaquePointer, accelerometer: SensorDescription,
         gyroscope: SensorDescription?, gyroscopeDevice: OpaquePointer?) {
        let settings = PartSettings()
        part = CapturedPart(source: source, context: context, device: device, accelerometer: accelerometer,
                            gyroscope: gyroscope, gyroscopeDevice: gyroscopeDevice, settings: settings)
        events = EventWatch(part: part)
    }

    /// Captures until the capture ends; every setting is put back before it returns.
    func run() -> Outcome {
        defer {
            // Disarmed first: a driver that refuses threshold writes while its event is enabled would refuse
            // putting the threshold back.
            events.disarm()
            part.settings.restore()
        }
        let accel = part.accel, rate = part.rate
        // First, as nothing else can be written while they run: the buffers a reader left enabled when it ended.
        var accelBusy = false
        if accel.capture == .buffered && part.accelFiles.read("buffer/enable") == "1" {
            accelBusy = !disableAbandonedBuffer(part.dev, accel.id)
        }
        if let gyro = part.gyro, let gyroDev = part.gyroDev, let files = part.gyroFiles, gyro.capture == .buffered,
           files.read("buffer/enable") == "1" {
            _ = disableAbandonedBuffer(gyroDev, gyro.id)
        }
        part.setFrequencies(accel.frequency?.chosen ?? rate)
        if accel.capture == .buffered {
            if accelBusy {
                SensorLog.once(.warning, "\(accel.id): its buffer is already enabled (\(part.accelFiles.path("buffer/enable")) reads 1), so another program is capturing from it (is iio-sensor-proxy running?); polling in_accel_*_raw at \(rate) Hz instead")
            } else {
                let outcome = BufferedCapture(part: part, events: events).run()
                if case .fallBack = outcome {} else { return outcome }
            }
        } else if let reason = accel.pollingReason {
            SensorLog.once(.info, "\(accel.id): polling in_accel_*_raw at \(rate) Hz: \(reason)")
        }
        return PolledCapture(part: part, events: events).run()
    }

    /// Disables the buffer of `device` when it was found enabled with nobody reading it, and returns whether it
    /// did; another program's buffer is left alone.
    ///
    /// A buffer is read through the device's node, which the kernel lets one process at a time hold open
    /// (`iio_chrdev_open`: EBUSY), and closing the node leaves the buffer enabled. A node that opens is one
    /// nobody reads: its reader ended without disabling the buffer (this service, killed or crashed, before
    /// its restart; iio-sensor-proxy killed).
    private func disableAbandonedBuffer(_ device: OpaquePointer, _ id: String) -> Bool {
        let node = "/dev/\(id)"
        let fd = Glibc.open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return false }
        Glibc.close(fd)
        if let failure = IIOContext.writeDevice(device, "buffer/enable", "0") {
            let err = SystemError(operation: "write 0 to", path: SensorError.sysfsPath(id, "buffer/enable"), errno: failure.code,
                                  fix: SensorError.sysfsFix(failure.code))
            SensorLog.once(.warning, "\(id): its buffer was left enabled with nobody reading \(node), and disabling it failed: \(err)")
            return false
        }
        SensorLog.once(.info, "\(id): its buffer was left enabled with nobody reading \(node) (its reader ended without disabling it); disabled it")
        return true
    }
}

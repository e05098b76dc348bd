import RotationProtocol
import RotationSystem

/// The raw reads of a capture: the accelerometer's and a polled gyroscope's `in_*_raw` attributes, a read the kernel
/// refused, and the timing that tells a gyroscope too slow to poll.
extension CapturedSensor {
    /// Reads `in_<type>_<axis>_raw` of three channels, from their precomputed sysfs paths.
    func readRaw(_ sensor: SensorDescription, _ paths: [String]) -> Reading {
        var v = [0.0, 0.0, 0.0]
        for (i, path) in paths.enumerated() {
            switch SysfsNumber.read(path) {
            case .success(let n):
                if i < 3 { v[i] = n }
            case .failure(.system(let e)):
                return refusedRead(sensor, path, e)
            case .failure(.garbage(let text)):
                let err = SensorError.badValue(path: path, value: String(text.trimmedSysfs), expected: "a number")
                Log.limited(.warning, key: "garbage", "\(err); sample skipped")
                return .skipped
            }
        }
        return .value(Vector3(v[0], v[1], v[2]))
    }

    /// What a raw read that failed with `e` means: the device went away, a refusal that ends the capture, or a
    /// sample to skip.
    private func refusedRead(_ sensor: SensorDescription, _ path: String, _ e: Errno) -> Reading {
        if !IIOContext.isPresent(sensor.id) { return .failed(.gone(device: sensor.id)) }
        if e.isPermission {
            return .failed(.io(SystemError(operation: "read", path: path, errno: e, fix: SensorError.sysfsFix(e))))
        }
        if e == .busy {
            return .failed(.io(SystemError(operation: "read", path: path, errno: e,
                                           fix: "the device's buffer is running, so another program is capturing from it (is iio-sensor-proxy running?); stop that program")))
        }
        let err = SystemError(operation: "read", path: path, errno: e, fix: nil)
        Log.limited(.warning, key: "garbage", "\(err); sample skipped")
        return .skipped
    }

    /// The sysfs paths of the `raw` attributes of three channels.
    static func rawPaths(_ id: String, _ prefix: String, _ channels: [OpaquePointer]) -> [String] {
        channels.enumerated().map { i, ch in
            SensorError.sysfsPath(id, IIOContext.channelAttributeFile(ch, "raw") ?? "in_\(prefix)_\(["x", "y", "z"][i])_raw")
        }
    }

    /// The gyroscope's current reading, or nil.
    func polledGyro() -> Vector3? {
        guard let gyro, !gyroChannels.isEmpty else { return nil }
        if case .value(let raw) = readRaw(gyro, gyroPaths) { return gyro.calibration.apply(raw: raw) }
        return nil
    }

    /// Times one raw read of the polled gyroscope's first axis; one that takes more than a third of
    /// `slowReadShare` of a sample period sets the gyroscope aside (`gyroOnTrial`) until `confirmPolledGyro`, so
    /// that the first samples, and the first rotation, wait for no more slow reads.
    ///
    /// Some drivers power the sensor up for each raw read and wait for it to settle (st_lsm6dsx sleeps three to
    /// four sample periods, st_accel two per axis) or ask a sensor hub (hid-sensor); read through a buffer,
    /// the same sensors cost nothing per sample (`GyroscopeBuffer`).
    func checkPolledGyro() {
        guard let gyro, let path = gyroPaths.first else { return }
        let limit = CapturedSensor.slowReadShare / rate / 3
        guard CapturedSensor.timedRead(path) > limit else { return }
        gyroOnTrial = gyro
        self.gyro = nil
    }

    /// Times full raw reads of a gyroscope set aside by `checkPolledGyro`, once the device is still (nobody waits
    /// for a sample then): one that takes more than `slowReadShare` of a sample period at every try is dropped
    /// (logged once), and rotations are decided from the accelerometer alone; one whose first read was only held
    /// up is fused again.
    func confirmPolledGyro() {
        guard let trial = gyroOnTrial else { return }
        gyroOnTrial = nil
        let period = 1 / rate, limit = CapturedSensor.slowReadShare * period
        let took = CapturedSensor.quickest(within: limit) { _ = readRaw(trial, gyroPaths) }
        guard took > limit else {
            gyro = trial
            return
        }
        Log.once(.warning, "\(trial.id) (\(trial.name)): one read of in_anglvel_*_raw takes \(Int((took * 1000).rounded())) ms, \(ScaleDiagnosis.format(took / period)) sample periods at \(FrequencyPlan.text(rate)) Hz, too slow to read beside the accelerometer's samples without a buffer; rotations are decided from the accelerometer alone, which only makes some turns slower to report")
    }

    /// Reads the accelerometer (and the gyroscope: from its buffer beside the polled sensor, else its raw
    /// attributes) once.
    func takePolled() -> Taken {
        takeRaw { acceleration in
            guard self.gyro != nil else { return nil }
            if let buffer = self.gyroBuffer { return buffer.reading(acceleration: acceleration) }
            return self.polledGyro()
        }
    }

    /// Reads the accelerometer's raw attributes once, with the angular velocity `rate` gives for its reading.
    func takeRaw(_ rate: (_ acceleration: Vector3) -> Vector3?) -> Taken {
        let began = MonotonicClock.now()
        defer { due = nil }
        switch readRaw(accel, accelPaths) {
        case .failed(let error):
            return .failed(error)
        case .skipped:
            // The switches' events are read all the same: left pending, they would end the next wait at once.
            _ = source.switches?.read()
            return .skipped
        case .value(let raw):
            lastRaw = raw
            let read = MonotonicClock.now()
            var sample = Sample(time: max(read, lastTime), acceleration: accel.calibration.apply(raw: raw))
            sample.angularVelocity = rate(sample.acceleration)
            readFold(into: &sample, at: read)
            rawTiming = .polled(due: due ?? began, woke: began, read: MonotonicClock.now())
            return .sample(sample)
        }
    }
}

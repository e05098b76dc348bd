import Testing
@testable import RotationSensors
import RotationProtocol

/// The choice between a device's buffer and its raw attributes, from what discovery found (`CapturePlan`).
@Suite("Capture plan: the buffer only where it refuses nobody")
struct CapturePlanTests {
    static func plan(name: String = "accel_3d", trigger: String? = nil, canBuffer: Bool = true, hasRaw: Bool = true,
                     running: Bool = false, tag: String? = nil, gyroscopeAlone: Bool = false) -> CapturePlan {
        CapturePlan(canBuffer: canBuffer, pollingReason: canBuffer ? nil : "no trigger", name: name, trigger: trigger,
                    hasRaw: hasRaw, bufferEnabled: running, sensorProxyType: tag, gyroscopeAlone: gyroscopeAlone)
    }

    @Test("a gyroscope on a device of its own (st_lsm6dsx, bmg160) keeps its buffer where nobody else is seen reading it, whatever its driver does to raw reads; another program's buffer on it, or a udev tag, makes it polled")
    func gyroscopeAloneBuffers() {
        let alone = Self.plan(name: "lsm6dso_gyro", gyroscopeAlone: true)
        #expect(alone.mode == .buffered && alone.neighbour == nil && alone.reason.contains("a gyroscope on a device of its own"), "\(alone.summary)")
        #expect(Self.plan(name: "lsm6dso_gyro", running: true, gyroscopeAlone: true).mode == .polled)
        #expect(Self.plan(name: "lsm6dso_gyro", tag: "iio-poll-gyro", gyroscopeAlone: true).mode == .polled)
        #expect(Self.plan(name: "lsm6dso_gyro", canBuffer: false, gyroscopeAlone: true).mode == .polled)
        // The same driver's gyroscope sharing the accelerometer's device (inv_mpu6050, bmi323) stays polled with it.
        #expect(Self.plan(name: "mpu6500").mode == .polled)
    }

    @Test("discovery calls a gyroscope alone only when its device has no accelerometer channel")
    func gyroscopeAloneFromChannels() {
        func description(_ kind: SensorDescription.Kind, _ channels: [String]) -> SensorDescription {
            SensorDescription(id: "iio:device1", name: "part", label: nil, kind: kind, location: .display, locationSource: "default",
                              channels: channels, calibration: SensorCalibration(scale: Vector3(1, 1, 1)), capture: .buffered, pollingReason: nil,
                              trigger: nil, frequency: nil, batchLimit: nil, hasTimestamp: true, motionEvent: nil)
        }
        #expect(description(.gyroscope, ["anglvel_x", "anglvel_y", "anglvel_z", "timestamp"]).isGyroscopeAlone)
        #expect(!description(.gyroscope, ["accel_x", "accel_y", "accel_z", "anglvel_x", "anglvel_y", "anglvel_z"]).isGyroscopeAlone)
        #expect(!description(.accelerometer, ["accel_x", "accel_y", "accel_z"]).isGyroscopeAlone)
    }

    @Test("a driver known to answer raw reads while buffered (hid-sensor by name or by its hub's trigger, cros-ec, bmi160) keeps its buffer when nobody else reads the device",
          arguments: [("accel_3d", nil), ("IIO Test Accelerometer", "accel_3d-dev0"), ("cros-ec-accel", nil), ("bmi160", nil)])
    func answeringDriversBuffer(name: String, trigger: String?) {
        let p = Self.plan(name: name, trigger: trigger)
        #expect(p.mode == .buffered && p.neighbour == nil, "\(p.summary)")
    }

    @Test("every other driver is polled, as its buffer would make other programs' raw reads fail with EBUSY",
          arguments: ["BMA250E", "mxc4005", "lis3dh-accel", "bmi323", "KXCJ9000", "unknown-part"])
    func otherDriversPoll(name: String) {
        let p = Self.plan(name: name, trigger: "\(name)-dev0")
        #expect(p.mode == .polled && p.reason.contains("refuses raw reads"), "\(p.summary)")
    }

    @Test("iio-sensor-proxy's udev tag means the desktop reads the device: polled, even where the driver would answer, and the neighbour is named")
    func sensorProxyTagPolls() {
        let p = Self.plan(tag: "iio-poll-accel iio-buffer-accel")
        #expect(p.mode == .polled)
        #expect(p.neighbour == "iio-sensor-proxy (udev IIO_SENSOR_PROXY_TYPE=iio-poll-accel iio-buffer-accel)")
    }

    @Test("a buffer that runs is another program's: polled, nothing written to the device, whatever the driver or the tag")
    func runningBufferIsForeign() {
        for tag in [nil, "iio-buffer-accel"] {
            let p = Self.plan(running: true, tag: tag)
            #expect(p.mode == .polled, "\(p.summary)")
            #expect(p.neighbour?.hasPrefix("another program's buffer (buffer/enable reads 1)") == true, "\(p.summary)")
        }
    }

    @Test("a device without raw attributes is read through its buffer beside iio-sensor-proxy too, and a driver without a usable buffer is polled for its own reason")
    func noRawNoBuffer() {
        #expect(Self.plan(name: "mxc4005", hasRaw: false, tag: "iio-buffer-accel").mode == .buffered)
        let p = Self.plan(name: "accel_3d", canBuffer: false)
        #expect(p.mode == .polled && p.reason == "no trigger")
    }
}

/// The record of what a capture changed (`SettingsJournal`), as a crash may leave it.
@Suite("Settings journal: what a crash leaves")
struct SettingsJournalTests {
    @Test("whole lines are read back as written; a last line cut short by a crash, and a line of another form, are skipped")
    func partialLineSkipped() {
        let text = "changed\tiio:device0\tBMA250E\tbuffer/enable\t0\n"
            + "changed\tiio:device0\tBMA250E\tin_accel_sampling_frequency\t12.5\n"
            + "something else\n"
            + "changed\tiio:device0\tBMA250E\tevents/in_accel_x_roc_either_en\t"
        let entries = SettingsJournal.parse(text)
        #expect(entries == [SettingsJournal.Entry(id: "iio:device0", name: "BMA250E", file: "buffer/enable", value: "0"),
                            SettingsJournal.Entry(id: "iio:device0", name: "BMA250E", file: "in_accel_sampling_frequency", value: "12.5")])
    }
}

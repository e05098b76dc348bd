/// A way to spend a still spell without reading the sensor at the full rate: the sensor's motion event armed
/// (`MotionEventStill`), a HID hub's hysteresis (`HysteresisStill`), or one axis glanced at per read interval
/// (`AxisGlanceStill`). A capture tries the ones its mode offers, in order, and reads the sensor at the still pace
/// when none can run.
///
/// Each runs on the sensor thread until the device moves, the capture ends, or it finds it cannot run.
protocol StillMode {
    /// Holds the capture while the sampling policy says still; `takeOne` takes one full sample where the mode reads
    /// the sensor (a safety read, a fold read, a switch's change, the read after a glance). Ends with `.moved` (read
    /// at the full rate again), `.ended` (the capture ends) or `.unavailable` (the still pace instead).
    func runWhileStill(takeOne: () -> CapturedSensor.Taken) -> SensorCapture.StillEnd
}

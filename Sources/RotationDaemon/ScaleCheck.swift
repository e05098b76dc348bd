import RotationSensors
import RotationService
import RotationSystem

/// Checks once per capture, when the sensor has been still long enough to tell, whether its scale is wrong,
/// and warns once per device.
///
/// Touched only on the sensor thread (one at a time); a finished check costs one comparison per sample.
final class ScaleCheck: @unchecked Sendable {
    private var done = false
    private var warned: Set<String> = []

    func rearm() { done = false }

    func check(source: SensorSource, runner: EngineRunner) {
        guard !done, let sensor = source.sensor,
              let diagnosis = ScaleDiagnosis(sensor: sensor, learned: runner.learnedGravity,
                                             gravity: runner.configuration.gravity) else { return }
        done = true
        if diagnosis.isWrong, warned.insert(sensor.id).inserted {
            Log.warning(diagnosis.description)
        } else {
            Log.debug(diagnosis.description)
        }
    }
}

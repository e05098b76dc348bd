import RotationSystem

/// What a sensor source logs as its captures end: the absence of a sensor once until one is found, and each
/// failure once until the sensor delivers again, since every rescan retries the capture.

struct SessionLog {
    /// Whether the absence of a sensor was logged since one was last found.
    var absentLogged = false
    /// The failure logged since the sensor last delivered a sample: retries that fail the same way say nothing.
    var failureLogged: String?

    /// Logs how a capture ended, when that says something new. `wasDelivering`: whether the sensor was
    /// reporting `.ok`, so that its loss is announced; `rescanInterval`: seconds between retries, for the message.
    mutating func note(_ outcome: SensorCapture.Outcome, wasDelivering: Bool, rescanInterval: Double) {
        switch outcome {
        case .stopped, .fallBack:
            break
        case .absent(let message):
            if !absentLogged {
                Log.write(.warning, message)
                absentLogged = true
            }
        case .failed(let error):
            // Each rescan retries the capture: one line per problem until the sensor works again.
            if error.description != failureLogged {
                Log.write(error.isPermission ? .error : .warning, error.description)
                if wasDelivering {
                    if case .gone = error {
                        Log.write(.warning, "sensor lost; waiting for \(SensorDiscovery.lookingFor) to come back")
                    } else {
                        Log.write(.warning, "sensor lost; trying it again every \(SessionLog.seconds(rescanInterval))")
                    }
                }
                failureLogged = error.description
            }
            absentLogged = true
        }
    }

    /// "second" or "N seconds", for messages.
    private static func seconds(_ interval: Double) -> String {
        interval == 1 ? "second" : "\(interval) seconds"
    }
}

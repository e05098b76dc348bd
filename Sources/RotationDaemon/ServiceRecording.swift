import Glibc
import RotationConnection
import RotationProtocol
import RotationSensors
import RotationSystem

/// A report's recording through a running service: its raw `samples` subscription, which root and the members
/// of its `--samples-group` may read, while it keeps the sensor.
///
/// The service holds the sensor while a client listens (`Docs/sensors.md`, "Beside iio-sensor-proxy"), so its
/// samples are what the device reads as the service decides; the states it publishes meanwhile are kept too.
final class ServiceRecording {
    /// The socket connected to.
    let path: String
    /// The greeting, as the service sent it: its version, sensor and cameras.
    let hello: Hello
    /// The lines kept for `service.jsonl`: the greeting, then every state received.
    private(set) var lines: [String]
    private let connection: LineConnection

    private init(path: String, connection: LineConnection, hello: Hello, line: String) {
        self.path = path
        self.connection = connection
        self.hello = hello
        lines = [line]
    }

    /// Why recording through the service cannot go on.
    struct Failure: Error, CustomStringConvertible {
        /// What happened, with the fix.
        let description: String
    }

    /// Connects to the service at `path` and reads its greeting; nil, with the reason, when no service answers
    /// there. Throws when one answers but will not share its samples, or does not speak the protocol.
    static func connect(path: String) throws(Failure) -> (ServiceRecording?, why: String) {
        guard access(path, F_OK) == 0 else { return (nil, "no service socket at \(path)") }
        let connection: LineConnection
        do { connection = try LineConnection(path: path) } catch {
            return (nil, "the socket \(path) does not answer (\(error.reason))")
        }
        let line: String?
        do { line = try connection.readLine(timeout: Tolerances.greeting) } catch { throw Failure(description: error.description) }
        guard let line, case .hello(let hello)? = ServerMessage.decode(line), hello.protocolVersion == Hello.currentProtocol else {
            throw Failure(description: "\(path) did not greet as a protocol \(Hello.currentProtocol) rotationd service does; "
                          + "pass the service's socket with --socket PATH")
        }
        guard hello.samplesAllowed else {
            throw Failure(description: "the service on \(path) shares raw samples only with root and the members of its "
                          + "--samples-group, and a report records them: run it as root, such as sudo rotationd --report DIR")
        }
        return (ServiceRecording(path: path, connection: connection, hello: hello, line: line), "")
    }

    /// How long a service has to greet, s.
    enum Tolerances {
        static let greeting = 5.0
    }

    /// Subscribes to states and samples and writes each sample to `recorder` until `duration` s have passed,
    /// `stop` says so, or the service goes away (returned as the reason). `progress` is called about twice a
    /// second with the seconds left and the samples so far.
    func record(into recorder: TraceRecorder, duration: Double, stop: () -> Bool,
                progress: (Double, Int) -> Void) -> (samples: Int, ended: String?) {
        var samples = 0
        do { try connection.send(ClientCommand.subscribe([.state, .samples]).jsonLine) } catch {
            return (0, error.description)
        }
        let end = MonotonicClock.now() + duration
        var ended: String?
        while case let left = end - MonotonicClock.now(), left > 0, !stop() {
            progress(left, samples)
            let line: String?
            do { line = try connection.readLine(timeout: min(left, 0.5)) } catch {
                ended = error.description
                break
            }
            guard let line else {
                if connection.ended { ended = "the service closed the connection"; break }
                continue
            }
            switch ServerMessage.decode(line) {
            case .sample(let s)?:
                recorder.record(s.sample)
                samples += 1
            case .state?: lines.append(line)
            case .error(let e)?: ended = "the service refused: \(e.message)"
            default: break
            }
            if ended != nil { break }
        }
        recorder.finish()
        connection.close()
        return (samples, ended)
    }
}

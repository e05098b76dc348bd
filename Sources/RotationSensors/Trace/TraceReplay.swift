import RotationEngine
import RotationProtocol
import RotationSystem

/// A recorded trace, read and validated as a whole before anything is played.
public struct TraceReplay: Sendable {
    /// The samples, in file order.
    public let samples: [Sample]

    /// Reads and validates a whole trace file.
    ///
    /// - Throws: `ReplayError` naming the file, and the line and problem when the content is malformed.
    public init(path: String) throws(ReplayError) {
        let text: String
        do { text = try TextFile.read(path) } catch { throw ReplayError.unreadable(error) }
        do { samples = try TraceFormat.parse(text) } catch { throw ReplayError.malformed(path: path, error) }
    }
}

/// Why a replay could not start.
public enum ReplayError: Error, Sendable, CustomStringConvertible {
    /// The file could not be read.
    case unreadable(SystemError)
    /// The file's content is not a valid trace.
    case malformed(path: String, TraceError)

    /// One line naming the file, the line and the fix.
    public var description: String {
        switch self {
        case .unreadable(let e): return "replay: \(e)"
        case .malformed(let path, let e):
            return "replay: \(path): \(e); a trace is a header \"t,x,y,z\" or \"t,x,y,z,gx,gy,gz\" then one sample per line"
        }
    }
}

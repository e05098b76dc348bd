#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Waits for what a test can only see by looking again and again: a line in a file a process writes, a socket
/// that accepts, a count another thread keeps.
public enum Poll {
    /// How long a poll waits between two looks, in seconds: short beside every timeout in `Tolerance`.
    public static let interval = 0.02

    /// Checks `condition` until it holds (true) or `timeout` seconds have passed (false), every `interval` s.
    public static func until(timeout: Double, every interval: Double = interval, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if try condition() { return true }
            if Date() >= deadline { return false }
            usleep(useconds_t(interval * 1e6))
        }
    }
}

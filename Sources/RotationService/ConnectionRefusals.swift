import Glibc
import RotationProtocol
import RotationSystem

/// The connections a full server turns away: each is told why and closed, and the refusals are logged, counted,
/// at most once a second, so a connection storm cannot flood the log.
struct ConnectionRefusals {
    private var sinceLog = 0
    private var lastLog = -Double.infinity

    /// Tells the connection on `fd` that `maxClients` clients are connected already, closes it, and logs the
    /// refusals so far when a second has passed since the last such line (`now`, monotonic seconds).
    mutating func refuse(_ fd: Int32, maxClients: Int, now: Double) {
        var text = ErrorMessage(.tooManyClients, "\(maxClients) clients are connected, the most this service serves; try again later").jsonLine + "\n"
        _ = text.withUTF8 { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
        Glibc.close(fd)
        sinceLog += 1
        if now - lastLog >= 1 {
            Log.warning("refused \(sinceLog) client\(sinceLog == 1 ? "" : "s"): \(maxClients) clients are already connected")
            sinceLog = 0
            lastLog = now
        }
    }
}

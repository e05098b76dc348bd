import Glibc
import RotationEngine
import RotationProtocol
import RotationSystem

/// The commands a client sends, handled on the event loop's thread.
extension SocketServer {
    /// Handles one command line; false when the client was dropped.
    func handle(_ line: [UInt8], from c: ClientConnection) -> Bool {
        guard c.admitCommand(now: now, rate: limits.commandRate, burst: limits.commandBurst) else {
            drop(c, reason: ErrorMessage(.flood, "more than \(Int(limits.commandRate)) commands a second; closing"),
                 log: "sent commands too fast")
            return false
        }
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return true }
        switch ClientCommand.parse(line) {
        case .failure(let error):
            c.enqueueReply(error.jsonLine)
        case .success(.state):
            c.enqueueReply(views.event(latest, for: c.uid).jsonLine)
        case .success(.hello):
            c.enqueueReply(hello(for: c).jsonLine)
        case .success(.subscribe(let events)):
            if events.contains(.samples) && !c.samplesAllowed {
                c.enqueueReply(ErrorMessage(.forbidden, "raw samples are only for root and members of the samples group (rotationd --samples-group)").jsonLine)
                return true
            }
            let had = c.events.contains(.samples)
            c.events = events
            let has = events.contains(.samples)
            if had != has { sampleSubscribers.add(has ? 1 : -1, ordering: .relaxed) }
            c.enqueueReply(SubscribedMessage(events: events).jsonLine)
        case .success(.prefer(let key)):
            prefer(key, from: c)
        }
        return true
    }

    /// Makes the camera `key` names the preferred one of `c`'s user (nil: forgets it). The reply is that user's
    /// state, sent once the choice is on disk; when the camera recommended to the user changed, it is the change
    /// itself, which the user's other connections receive at once. A key that names no camera changes nothing.
    private func prefer(_ key: String?, from c: ClientConnection) {
        guard let uid = c.uid else {
            c.enqueueReply(ErrorMessage(.forbidden, "the service cannot tell which user this connection belongs to (the kernel gave no SO_PEERCRED), so it cannot keep a choice for it").jsonLine)
            return
        }
        var identity: String?
        if let key {
            guard let cam = CameraLookup.camera(key, in: latest.cameras, resolve: SocketServer.resolvedPath) else {
                c.enqueueReply(ErrorMessage(.badArgument, unknownCamera(key)).jsonLine)
                return
            }
            identity = cam.identity
        }
        let before = views.event(latest, for: uid).preferred
        let change = store.choose(identity, for: uid).change
        var reply = views.event(latest, for: uid)
        if reply.preferred != before {
            views.countOwnChange(for: uid, connected: Set(clients.values.compactMap(\.uid)))
            let seen = views.line(latest, for: uid)
            reply = seen.event
            for other in clients.values where other.uid == uid && other.id != c.id && other.events.contains(.state) {
                other.enqueueState(seen.event, line: seen.line, backlog: limits.stateBacklog)
                flush(other)
            }
        }
        Log.debug("user \(uid) (pid \(c.pid)) prefers \(identity ?? "no camera"); recommended to it: \(reply.preferred ?? "none")")
        c.enqueueReply(reply.jsonLine, gate: change)
    }

    /// Why `key` cannot be preferred, and what can.
    private func unknownCamera(_ key: String) -> String {
        let shown = key.count > 80 ? String(key.prefix(80)) + "…" : key
        let cameras = latest.cameras.map { cam in cam.device.map { "\(cam.name) (\($0))" } ?? cam.name }
        let known = cameras.isEmpty ? "there are no cameras now" : "the cameras are " + cameras.joined(separator: ", ")
        return "no camera is known as \"\(shown)\" (a name, device node, libcamera id or bus path of a camera in the state; a node that delivers no pictures, such as a UVC camera's metadata node, is not a camera); \(known); nothing was changed"
    }

    /// The file a device path's symlinks lead to (udev's `/dev/v4l/by-path/...` links), or nil when it is not a
    /// symlink or cannot be read. The links are followed by hand, at most 8 of them: realpath() is not used, since
    /// some preloads (umockdev's) answer it wrongly for device nodes.
    static func resolvedPath(_ path: String) -> String? {
        var current = path
        for _ in 0..<8 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buffer, buffer.count - 1)
            guard n > 0 else { return current == path ? nil : current }
            let target = String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : SocketServer.lexicallyJoined(current, target)
        }
        return nil
    }

    /// `relative` resolved against the directory holding `path`, without touching the file system.
    static func lexicallyJoined(_ path: String, _ relative: String) -> String {
        var parts = path.split(separator: "/").dropLast().map(String.init)
        for p in relative.split(separator: "/") {
            if p == ".." { _ = parts.popLast() } else if p != "." { parts.append(String(p)) }
        }
        return "/" + parts.joined(separator: "/")
    }
}

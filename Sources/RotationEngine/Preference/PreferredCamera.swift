import RotationProtocol

/// Which camera a program should open, for one user: the system's preferred camera.
///
/// The rules, first that gives a camera wins (`Docs/cameras.md`, "Which camera to open"):
/// 1. `arrival`: the camera plugged in most recently that is not infrared, while it stays attached, unless this
///    user chose a camera after it came;
/// 2. `choice`: the user's preferred camera, while attached (even an infrared one: the user chose it);
/// 3. `facingUser`: a built-in camera that is not infrared and looks at the user: its direction `forward` where the
///    fold tells the direction, else facing `front`;
/// 4. `anyPicture`: any other camera that is not infrared, one that is not covered (an inner face of a closed
///    device) before one that is;
/// and none otherwise. Among cameras a rule allows equally, the first in the state's list wins (configured cameras
/// first, then the found ones in device order).
public enum PreferredCamera {
    /// The rule that picked a camera.
    public enum Rule: String, Sendable, Hashable, CaseIterable {
        /// The camera plugged in last, not infrared, and no choice made since.
        case arrival
        /// The user's own choice.
        case choice
        /// The built-in camera that looks at the user.
        case facingUser = "facing-user"
        /// Any camera that takes pictures.
        case anyPicture = "any-picture"

        /// What the rule says, for logs and `rotationd --list`.
        public var summary: String {
            switch self {
            case .arrival: return "the camera plugged in last, with no choice made since"
            case .choice: return "the user's choice"
            case .facingUser: return "the built-in camera facing the user"
            case .anyPicture: return "the first camera that is not infrared"
            }
        }
    }

    /// A camera picked, and the rule that picked it.
    public struct Pick: Sendable, Hashable {
        /// The camera's name in the state.
        public var name: String
        /// Why it was picked.
        public var rule: Rule
    }

    /// The camera recommended among `cameras`, in `state`, to a user whose preferred camera is `choice` (nil: none
    /// kept), with `arrival` the most recent camera plugged in that is not infrared.
    public static func pick(cameras: [Camera], state: DeviceState, arrival: CameraArrival?, choice: CameraChoice?) -> Pick? {
        if let arrival, choice.map({ $0.order < arrival.order }) ?? true,
           let cam = cameras.first(where: { $0.name == arrival.name && !$0.infrared }) {
            return Pick(name: cam.name, rule: .arrival)
        }
        if let choice, let cam = cameras.first(where: { $0.identity == choice.camera }) {
            return Pick(name: cam.name, rule: .choice)
        }
        if let cam = cameras.first(where: { facesUser($0, fold: state.fold) }) {
            return Pick(name: cam.name, rule: .facingUser)
        }
        let pictures = cameras.filter { !$0.infrared }
        if let cam = pictures.first(where: { state.fold.direction(of: $0) != .covered }) ?? pictures.first {
            return Pick(name: cam.name, rule: .anyPicture)
        }
        return nil
    }

    /// Whether `cam` is built in, takes pictures and looks at the user: `forward` where `fold` tells its direction,
    /// else facing front.
    static func facesUser(_ cam: Camera, fold: PostureState) -> Bool {
        guard cam.facing != .external, !cam.infrared else { return false }
        if let direction = fold.direction(of: cam) { return direction == .forward }
        return cam.facing == .front
    }
}

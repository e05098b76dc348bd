/// The panel of a convertible a camera sits on, which decides whose orientation turns its frames.
public enum CameraPanel: String, Sendable, Hashable, CaseIterable {
    /// The display's panel (the default): `front` is the display's face, `back` the lid's outside.
    case lid
    /// The keyboard's panel: `front` is its top face (the keyboard deck), `back` its underside.
    case base
}

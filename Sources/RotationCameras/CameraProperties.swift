/// What camera discovery reads of a video4linux device to decide its facing and mount, besides its sensor
/// controls: udev properties and the USB port it sits on. `VideoDevice` reads them from libudev.
package protocol CameraProperties {
    /// udev property `key`, trimmed, or nil when unset or empty.
    func property(_ key: String) -> String?
    /// The USB device the node belongs to (its kernel name and `removable` attribute), or nil when not on USB.
    var usbPort: (name: String, removable: String?)? { get }
}

extension VideoDevice: CameraProperties {}

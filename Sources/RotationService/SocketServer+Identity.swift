extension SocketServer {
    /// What the `hello` message reports about this service besides the cameras, which it takes from the
    /// latest state.
    public struct Identity: Sendable {
        /// A description of the sensor in use, or nil when there is none.
        public var sensor: String?

        /// Creates an identity.
        public init(sensor: String?) {
            self.sensor = sensor
        }
    }
}

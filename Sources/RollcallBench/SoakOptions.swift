/// What a soak run does and for how long.
public struct SoakOptions: Sendable {
    /// The longest soak run accepted, in seconds (6 hours).
    public static let maximumDuration: Double = 6 * 3600

    /// The server's rooms endpoint, e.g. `ws://127.0.0.1:8080/v1/ws`.
    public var target: BenchTarget
    /// Seconds of churn.
    public var duration: Double = 60
    /// Seconds between report lines (and samples).
    public var interval: Double = 10
    /// The server process whose memory and descriptors are sampled.
    public var serverPID: Int32?
    /// Client slots: at most this many connections are open at once.
    public var connections = 50
    /// Rooms the clients spread over.
    public var rooms = 10
    /// Actions (connect and join, state change, leave, close, drop) per second, over all clients.
    public var rate = 20
    /// The token key as `kid:secret`.
    public var key = "dev:rollcall-development-key-change-me"
    /// The longest any socket operation waits, in seconds.
    public var timeout: Double = 2
    /// Seeds the choice of actions, so a run can be repeated.
    public var seed: UInt64 = 1

    public init(target: BenchTarget) {
        self.target = target
    }

    /// Checks every bound.
    public func validate() throws(BenchError) {
        guard self.duration > 0, self.duration <= Self.maximumDuration else {
            throw BenchError("--duration must be in (0, \(Int(Self.maximumDuration))] seconds for soak")
        }
        guard self.interval >= 1, self.interval <= 3600 else { throw BenchError("--interval must be 1...3600 seconds") }
        guard (1...5_000).contains(self.connections) else {
            throw BenchError("--connections must be 1...5000 for soak")
        }
        guard (1...100).contains(self.rooms) else { throw BenchError("--rooms must be 1...100 for soak") }
        guard (1...1_000).contains(self.rate) else { throw BenchError("--rate must be 1...1000 actions per second") }
        guard self.timeout > 0, self.timeout <= 60 else { throw BenchError("--timeout must be in (0, 60] seconds") }
        guard !self.target.isSecure else { throw BenchError("soak runs over ws:// only") }
        guard self.serverPID != nil else {
            throw BenchError("soak needs --server-pid PID (the server's memory and descriptors are its point)")
        }
    }
}

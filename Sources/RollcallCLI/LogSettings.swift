import RollcallServer

/// What the server logs.
public struct LogSettings: Sendable {
    /// The least severe level written: debug, info, warn or error.
    public var level: GatewayLogger.Level = .info

    public init() {}
}

import JSONCoding

/// A request waiting for its answer, on the client's table of requests by id.
struct PendingRequest {
    /// What the request was, for the timeout error.
    var what: String
    /// When it times out (monotonic seconds).
    var deadline: Double
    /// The room a join or view request is about.
    var room: String?
    /// Whether the request completes when the room's roster arrives (`snapshot` or `resumed`) rather than on `ack`.
    var completesOnRoster: Bool
    /// The `ack`, once it arrived, for a request that completes on the roster.
    var acknowledgement: JSONValue?
    /// Called once, on the client's thread, with the answer or the failure.
    var completion: @Sendable (Result<JSONValue, RollcallError>) -> Void
}

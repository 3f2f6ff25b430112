import JSONCoding

/// Ephemeral signals (docs/PROTOCOL.md, "signal"): sent to the room or to one participant, heard as they arrive,
/// never in the room's log (no sequence number, not replayed after a reconnect).
extension RoomSubscription {
    /// Every signal others send to the room or to this user from now on; the stream ends when the subscription ends.
    public var signals: AsyncStream<RollcallSignal> { self.signalBroadcaster.stream() }

    /// Adds a callback for every signal from now on, called on the client's thread.
    ///
    /// - Parameters:
    ///   - handler: the callback; keep it short, it delays the next message.
    public func onSignal(_ handler: @escaping @Sendable (RollcallSignal) -> Void) {
        self.signalBroadcaster.add(handler)
    }

    /// Sends an ephemeral signal to every other subscriber of the room, or to one participant's devices.
    ///
    /// - Parameters:
    ///   - kind: the app's name for it (`reaction` for an emoji burst).
    ///   - data: any JSON, within the gateway's `rooms.max_signal_bytes`.
    ///   - to: the uid of one participant in the call; nil for the whole room.
    /// - Throws: the gateway's refusal: `ERR_FORBIDDEN` (an observer or a viewer), `ERR_NOT_FOUND` (`to` is not in
    ///   the call), `ERR_TOO_LARGE`, `ERR_RATE_LIMITED`; `.notConnected` without a connection.
    public func signal(_ kind: String, data: JSONValue? = nil, to: String? = nil) async throws(RollcallError) {
        guard let client = self.client else { throw RollcallError(.notConnected) }
        var fields: [(String, JSONValue)] = [("room", .string(self.room)), ("kind", .string(kind))]
        if let data { fields.append(("data", data)) }
        if let to { fields.append(("to", .string(to))) }
        _ = try await client.request(.signal, fields)
    }

    /// A signal for this room arrived (the client's thread).
    func signalled(_ signal: RollcallSignal) {
        guard self.isActive else { return }
        self.signalBroadcaster.publish(signal)
    }
}

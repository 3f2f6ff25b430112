import JSONCoding

extension RoomState {
    /// An entry's event message as the room's subscribers get it (`{"type":"event", ...}`), read against this
    /// state, which must be the room's state right after the entry: for feeds that rebuild a room from its log
    /// (webhooks in a cluster).
    ///
    /// - Parameter entry: the entry, the last one applied to this state.
    /// - Returns: the event's wire name and the message's JSON text.
    public func eventMessage(for entry: RoomLogEntry) -> (name: String, message: [UInt8]) {
        (ServerMessages.eventName(entry.event), ServerMessages.event(entry, room: self))
    }
}

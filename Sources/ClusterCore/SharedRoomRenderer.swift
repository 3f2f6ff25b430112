import Rooms

/// One room's event messages rebuilt from the shared log, for webhooks in a cluster: the room's state is folded
/// from the start of its records (when the log still holds its first entry) or from its checkpoint, and each
/// entry delivered is applied to it and rendered exactly as the room's subscribers got it.
///
/// When the state cannot reach an entry exactly (the endpoint is behind the room's checkpoint and the log no longer
/// holds the entries before it, or entries were trimmed before they were delivered), the entry is rendered against
/// the nearest state that can be rebuilt: its participant details are then those of that later or earlier point.
public struct SharedRoomRenderer: Sendable {
    /// The room as of the last entry applied, with its shown speaker (for the attendance report).
    public private(set) var replica: RoomReplica
    /// The epoch of the room's records the state belongs to.
    public let epoch: String
    /// The rule the shown speaker follows, as the nodes apply it.
    public let speakerRule: SpeakerRule

    /// The room's state after the last entry applied.
    public var state: RoomState { self.replica.state }

    /// Rebuilds the room's state just before `sequence`.
    ///
    /// - Parameters:
    ///   - room: the room id.
    ///   - epoch: the epoch of the room's records now.
    ///   - checkpoint: the room's latest checkpoint, if any.
    ///   - entries: the retained entries, oldest first (those of another epoch are ignored).
    ///   - sequence: the first entry to be rendered.
    ///   - speakerRule: the rule the shown speaker follows (`RoomsConfiguration.speakerRule`).
    public init(
        room: String, epoch: String, checkpoint: SharedCheckpoint?, entries: [SharedLogEntry], before sequence: UInt64,
        speakerRule: SpeakerRule = RoomsConfiguration().speakerRule
    ) {
        var replica = RoomReplica(state: RoomState(id: room))
        let retained = entries.filter { $0.epoch == epoch }
        let fromStart = retained.first?.entry.sequence == 1
        if let saved = checkpoint?.replica(in: epoch),
            saved.state.sequence < sequence || !fromStart
        {
            replica = saved
            replica.state.id = room
        }
        for shared in retained
        where shared.entry.sequence == replica.state.sequence + 1 && shared.entry.sequence < sequence {
            replica.apply(shared.entry, speakerRule: speakerRule)
        }
        self.replica = replica
        self.epoch = epoch
        self.speakerRule = speakerRule
    }

    /// Whether the state is right before `sequence` (its entries can be rendered exactly without a reload).
    ///
    /// - Parameter sequence: the next entry's sequence number.
    public func follows(_ sequence: UInt64) -> Bool { self.state.sequence + 1 == sequence }

    /// The webhook item of the next entry: applied to the state when it is newer (after a gap, without the entries
    /// in between), else rendered against the state as it is.
    ///
    /// - Parameter shared: the entry.
    public mutating func render(_ shared: SharedLogEntry) -> WebhookFeedItem {
        let entry = shared.entry
        // After a gap (entries trimmed before delivery) the state goes on without them.
        if entry.sequence > self.state.sequence { self.replica.apply(entry, speakerRule: self.speakerRule) }
        let (name, message) = self.state.eventMessage(for: entry)
        return WebhookFeedItem(
            marker: "\(self.state.id):\(entry.sequence)", room: self.state.id, sequence: entry.sequence,
            time: entry.time, eventName: name,
            message: self.replica.webhookMessage(for: entry, message: message) ?? message)
    }
}

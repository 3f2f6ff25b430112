/// The room log of a single process, and the gateway's default: it numbers each room's entries here, inline, as
/// the gateway applies them (no round trip, no closure per entry), so every room is at hand at once; and it keeps
/// the rooms across restarts in its `RoomStore`, when it has one: every applied entry, and a checkpoint every
/// `checkpointInterval` entries, go to the store's next commit.
public final class LocalRoomLog: SharedRoomLog {
    /// Told when the store cannot be read. Held unowned, not weakly: the gateway owns its log, and a weak reference
    /// would give the gateway a side table, making every retain and release of it take the slow path.
    public unowned var delegate: (any SharedRoomLogDelegate)?
    /// Where rooms are kept across restarts; nil keeps them in memory only. Set it before the first session opens.
    public var store: (any RoomStore)?
    /// A room's checkpoint goes to the store every this many entries.
    public var checkpointInterval: UInt64

    /// - Parameters:
    ///   - store: where rooms are kept across restarts; nil (the default) keeps them in memory only.
    ///   - checkpointInterval: a checkpoint every this many entries of a room (default 100).
    public init(store: (any RoomStore)? = nil, checkpointInterval: UInt64 = 100) {
        self.store = store
        self.checkpointInterval = max(1, checkpointInterval)
    }

    /// Alone, answering inline, leaving admission to the gateway.
    public var traits: RoomLogTraits { .local }

    /// The store, if any.
    public var roomStore: (any RoomStore)? { self.store }

    /// Nothing to load: the room is at hand (the gateway reads a stored one back itself, `RoomsNode.loadStoredRoom`).
    public func follow(_ room: String) {}

    /// Nothing to stop.
    public func unfollow(_ room: String) {}

    /// Appends the event to the room's log, which numbers it after its last entry, and returns its entry.
    public func appendInline(_ event: ProposedEvent, to log: inout RoomLog, time: Int64) -> RoomLogEntry? {
        log.append(event.event, time: time, actor: event.actor, reason: event.reason)
    }

    /// Refused with `conditionFailed`, nothing appended: this log knows no room's last sequence number but the
    /// gateway's, which numbers every event inline (`appendInline`).
    public func append(_ proposal: LogProposal, completion: @escaping (Result<UInt64, LogAppendFailure>) -> Void) {
        completion(.failure(.conditionFailed))
    }

    /// Buffers the entry for the store's next commit, with a checkpoint when one is due.
    public func applied(_ entry: RoomLogEntry, message: [UInt8], room: String, replica: () -> RoomReplica) {
        guard let store = self.store else { return }
        let name = ServerMessages.eventName(entry.event)
        var webhookMessage: [UInt8]? = nil
        switch entry.event {
        case .sessionEnded, .participantLeft: webhookMessage = replica().webhookMessage(for: entry, message: message)
        default: break
        }
        store.append(
            StoredLogEntry(entry: entry, eventName: name, message: message, webhookMessage: webhookMessage), room: room)
        if entry.sequence % self.checkpointInterval == 0 { store.writeCheckpoint(replica()) }
    }

    /// Nobody else to disconnect.
    public func disconnect(uid: String, reason: String?) {}

    /// The rooms the store knows (none without a store), inline: their last sequence numbers, and no participants
    /// (the gateway counts those of the rooms it has in memory).
    public func listRooms(
        after: String?, limit: Int, completion: @escaping (Result<[SharedRoomSummary], GatewayError>) -> Void
    ) {
        guard let store = self.store else {
            completion(.success([]))
            return
        }
        do {
            let rooms = try store.rooms(after: after, limit: limit)
            completion(.success(rooms.map { SharedRoomSummary(room: $0.room, sequence: $0.sequence, participants: 0) }))
        } catch {
            self.delegate?.roomLogStoreUnreadable("cannot list the stored rooms: \(error)")
            completion(.failure(.storeUnreadable))
        }
    }
}

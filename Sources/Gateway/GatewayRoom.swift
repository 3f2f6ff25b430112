/// One room as the gateway keeps it: the reduced state, the log, the subscribers, the roster views, and what
/// changed since the last flush of patches.
final class GatewayRoom {
    struct DeviceKey: Hashable {
        var uid: String
        var deviceID: String
    }

    /// A device whose socket ended: when it leaves unless it comes back, and how the socket ended.
    struct LostDevice {
        var deadline: Int64
        var closedCleanly: Bool
    }

    var state: RoomState
    var log: RoomLog
    /// Every subscriber, in subscription order (deterministic fan-out order).
    var subscribers: [SessionID] = [] {
        didSet { self.subscriberEventModes = nil }
    }
    /// The subscribers with the event mode of their subscription, in subscription order: what `append` needs per
    /// event, without two dictionary lookups (one keyed by the room id string) per subscriber. Rebuilt after any
    /// change of `subscribers`; nil until then.
    var subscriberEventModes: [(id: SessionID, events: EventMode)]?
    /// Devices whose socket ended, with the time they leave unless they come back.
    var lostDevices: [DeviceKey: LostDevice] = [:]
    /// Each retained entry's event message as it was sent live, by sequence number, so that history and resume
    /// replay what subscribers saw then rather than the entry described against today's state.
    var messages: [UInt64: [UInt8]] = [:]
    /// Roster views by spec; the whole-roster view always exists.
    var channels: [RosterViewSpec: ViewChannel] = [:]
    /// What changed since the last flush.
    var dirtyUIDs: Set<String> = []
    var everythingDirty = false
    var roomDirty = false
    /// When the pending changes must be flushed (the end of the coalescing window), if any are pending.
    var flushDue: Int64?
    /// When a join last sent the pending changes at once (in a storm of joins, the others coalesce).
    var lastJoinFlush: Int64?
    /// The active speaker shown in the views, held for a minimum time so the spotlight never flickers.
    var heldSpeaker: String?
    var heldSince: Int64 = 0
    /// When the hold of the shown speaker ends while another one is reported, if that is pending.
    var speakerDue: Int64?

    /// When the room was created, in milliseconds (for expiry when nothing ever happens in it).
    let createdAt: Int64

    init(id: String, retention: HistoryRetention, createdAt: Int64 = 0) {
        self.createdAt = createdAt
        self.state = RoomState(id: id)
        self.log = RoomLog(retention: retention)
    }

    var hasPendingChanges: Bool { self.everythingDirty || self.roomDirty || !self.dirtyUIDs.isEmpty }

    /// Notes which parts of the roster an event may have changed.
    func markDirty(for event: RoomEvent) {
        self.roomDirty = true
        switch event {
        case .participantJoined(let uid, _, _, _, _, _), .participantLeft(let uid, _, _), .connectionLost(let uid, _),
            .connectionRestored(let uid, _), .flagChanged(let uid, _, _), .mediaIDChanged(let uid, _),
            .cameraFacingChanged(let uid, _), .operatorChanged(let uid, _), .banChanged(let uid, _),
            .mutedByModerator(let uid):
            self.dirtyUIDs.insert(uid)
        case .sessionEnded:
            self.everythingDirty = true
        case .participantConnectionClosed(let uid, _):
            self.dirtyUIDs.insert(uid)
        case .activeSpeakerChanged, .activeSpeakerShown, .recordingChanged, .audioModeChanged, .meetingMessage:
            break
        }
    }
}

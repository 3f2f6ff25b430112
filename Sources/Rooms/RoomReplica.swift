/// Everything about a room that follows from its log alone: the reduced state and the active speaker the roster
/// views show. Two nodes that apply the same entries hold equal replicas, which is what lets a cluster hand out the
/// same sequence numbers, the same views and exact resumes from any node.
public struct RoomReplica: Hashable, Sendable {
    public var state: RoomState
    /// The active speaker the views show: it changes at most once per hold time, so the spotlight never flickers.
    public var heldSpeaker: String?
    /// The log time the shown speaker was set.
    public var heldSince: Int64
    /// When the hold of the shown speaker ends while another one is reported (log time); nil when nothing waits.
    /// The gateway then logs `activeSpeakerShown` so the switch has a sequence number of its own.
    public var speakerDue: Int64?

    public init(state: RoomState, heldSpeaker: String? = nil, heldSince: Int64 = 0, speakerDue: Int64? = nil) {
        self.state = state
        self.heldSpeaker = heldSpeaker
        self.heldSince = heldSince
        self.speakerDue = speakerDue
    }

    /// Applies the next entry: the reducer, then the speaker hold at the entry's time.
    ///
    /// - Parameters:
    ///   - entry: the next log entry.
    ///   - speakerHold: the minimum time a shown speaker stays, in milliseconds.
    /// - Returns: the uids whose shown-speaker mark changed (the previous and the new shown speaker), if any.
    @discardableResult
    public mutating func apply(_ entry: RoomLogEntry, speakerHold: Int64) -> [String] {
        self.state.apply(entry)
        var desired = self.state.activeSpeaker
        if let speaker = desired, self.state.participants[speaker]?.isJoined != true { desired = nil }
        guard desired != self.heldSpeaker else {
            self.speakerDue = nil
            return []
        }
        let heldIsGone = self.heldSpeaker.map { self.state.participants[$0]?.isJoined != true } ?? true
        var forced = false
        if case .activeSpeakerShown = entry.event { forced = true }
        guard forced || heldIsGone || entry.time - self.heldSince >= speakerHold else {
            // Keep the current speaker until the hold ends, then show whoever speaks then.
            self.speakerDue = self.heldSince + speakerHold
            return []
        }
        let changed = [self.heldSpeaker, desired].compactMap { $0 }
        self.heldSpeaker = desired
        self.heldSince = entry.time
        self.speakerDue = nil
        return changed
    }
}

/// Everything about a room that follows from its log alone: the reduced state and the active speaker the roster
/// views show. Two nodes that apply the same entries hold equal replicas, which is what lets a cluster hand out the
/// same sequence numbers, the same views and exact resumes from any node.
public struct RoomReplica: Hashable, Sendable {
    public var state: RoomState
    /// The active speaker the views show, which follows the reports by the room's `SpeakerRule`.
    public var heldSpeaker: String?
    /// The log time the shown speaker was set.
    public var heldSince: Int64
    /// When the shown speaker is due to switch (log time); nil when nothing waits. The gateway then logs
    /// `activeSpeakerShown` so the switch has a sequence number of its own.
    public var speakerDue: Int64?
    /// The speaker the reports settled on while a switch is due (`stable` rule); nil for nobody.
    public var pendingSpeaker: String?

    public init(
        state: RoomState,
        heldSpeaker: String? = nil,
        heldSince: Int64 = 0,
        speakerDue: Int64? = nil,
        pendingSpeaker: String? = nil
    ) {
        self.state = state
        self.heldSpeaker = heldSpeaker
        self.heldSince = heldSince
        self.speakerDue = speakerDue
        self.pendingSpeaker = pendingSpeaker
    }

    /// Applies the next entry: the reducer, then the speaker rule at the entry's time.
    ///
    /// - Parameters:
    ///   - entry: the next log entry.
    ///   - speakerRule: how the shown speaker follows the reports.
    /// - Returns: the uids whose shown-speaker mark changed (the previous and the new shown speaker), if any.
    @discardableResult
    public mutating func apply(_ entry: RoomLogEntry, speakerRule: SpeakerRule) -> [String] {
        self.state.apply(entry)
        var desired = self.state.activeSpeaker
        if let speaker = desired, self.state.participants[speaker]?.isJoined != true { desired = nil }
        guard desired != self.heldSpeaker else {
            self.speakerDue = nil
            self.pendingSpeaker = nil
            return []
        }
        var forced = false
        if case .activeSpeakerShown = entry.event { forced = true }
        // A shown speaker who left the call is not shown a moment longer.
        let heldHasLeft = self.heldSpeaker.map { self.state.participants[$0]?.isJoined != true } ?? false
        switch speakerRule {
        case .hold(let hold):
            guard forced || heldHasLeft || self.heldSpeaker == nil || entry.time - self.heldSince >= hold else {
                // Keep the current speaker until the hold ends, then show whoever speaks then.
                self.speakerDue = self.heldSince + hold
                return []
            }
        case .stable(let stable):
            guard forced || heldHasLeft else {
                // Show the reports' choice once it has held: a new choice starts the wait again.
                if self.speakerDue == nil || self.pendingSpeaker != desired {
                    self.pendingSpeaker = desired
                    self.speakerDue = entry.time + stable
                }
                return []
            }
        }
        let changed = [self.heldSpeaker, desired].compactMap { $0 }
        self.heldSpeaker = desired
        self.heldSince = entry.time
        self.speakerDue = nil
        self.pendingSpeaker = nil
        return changed
    }
}

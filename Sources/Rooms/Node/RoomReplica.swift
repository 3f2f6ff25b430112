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
    /// Whether the shown speaker switched at once (the shown speaker left, was hidden, or the `hold` rule let a
    /// report through) on an entry that does not say so: the gateway then logs `activeSpeakerShown`, so every
    /// switch has its event.
    public var switchUnannounced: Bool

    public init(
        state: RoomState,
        heldSpeaker: String? = nil,
        heldSince: Int64 = 0,
        speakerDue: Int64? = nil,
        pendingSpeaker: String? = nil,
        switchUnannounced: Bool = false
    ) {
        self.state = state
        self.heldSpeaker = heldSpeaker
        self.heldSince = heldSince
        self.speakerDue = speakerDue
        self.pendingSpeaker = pendingSpeaker
        self.switchUnannounced = switchUnannounced
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
        let previous = self.heldSpeaker
        let desired = self.state.shownSpeakerCandidate
        if case .activeSpeakerShown(let uid) = entry.event {
            // The logged switch: the speaker it names is shown from now on (whoever the reports settled on, should
            // that one no longer be in the call), and no switch waits to be announced.
            self.switchUnannounced = false
            let shown = uid.map { self.state.shownSpeakerCandidate(includes: $0) } == false ? desired : uid
            if shown != self.heldSpeaker { self.show(shown, at: entry.time) }
        }
        guard desired != self.heldSpeaker else {
            self.speakerDue = nil
            self.pendingSpeaker = nil
            return Self.changes(from: previous, to: self.heldSpeaker)
        }
        // A shown speaker who left the call, or is hidden now, is not shown a moment longer.
        let heldHasLeft = self.heldSpeaker.map { !self.state.shownSpeakerCandidate(includes: $0) } ?? false
        switch speakerRule {
        case .hold(let hold):
            guard heldHasLeft || self.heldSpeaker == nil || entry.time - self.heldSince >= hold else {
                // Keep the current speaker until the hold ends, then show whoever speaks then.
                self.speakerDue = self.heldSince + hold
                return Self.changes(from: previous, to: self.heldSpeaker)
            }
        case .stable(let stable):
            guard heldHasLeft else {
                // Show the reports' choice once it has held: a new choice starts the wait again.
                if self.speakerDue == nil || self.pendingSpeaker != desired {
                    self.pendingSpeaker = desired
                    self.speakerDue = entry.time + stable
                }
                return Self.changes(from: previous, to: self.heldSpeaker)
            }
        }
        // A switch at once, on an entry that is not the logged switch: the gateway logs it right after.
        self.show(desired, at: entry.time)
        self.speakerDue = nil
        self.pendingSpeaker = nil
        self.switchUnannounced = true
        return Self.changes(from: previous, to: desired)
    }

    /// Shows `uid` from `time` on, crediting the speaker shown until then with its time speaking (attendance).
    private mutating func show(_ uid: String?, at time: Int64) {
        if let previous = self.heldSpeaker, time > self.heldSince {
            self.state.participants[previous]?.speakingMilliseconds += time - self.heldSince
        }
        self.heldSpeaker = uid
        self.heldSince = time
    }

    /// The uids whose shown-speaker mark changes from `previous` to `current`.
    private static func changes(from previous: String?, to current: String?) -> [String] {
        previous == current ? [] : [previous, current].compactMap { $0 }
    }
}

import JSONCoding
import RoomsTesting

@testable import Rooms

/// What the random roster call checks its subscribers' events against: every event the room sent, as a
/// subscriber that takes every event and never leaves received it (joined again after each restart, with the events
/// logged while the room was read back taken from the room's history), and what the resumes exercised.
final class ResumeLedger {
    /// The store the call's gateway keeps its rooms in, when the call plays restarts; it keeps every entry.
    let store: InMemoryRoomStore?
    /// A checkpoint goes to the store every this many entries.
    let storeCheckpointInterval: UInt64
    /// Whether bursts and restarts come more often (the resume property test).
    let resumeFocus: Bool
    /// The subscriber taking every event, on the gateway running now.
    var recorder: SessionID?
    /// Every event sent, by sequence number, as sent live.
    private(set) var events: [UInt64: JSONValue] = [:]
    /// The newest sequence number the ledger has looked at.
    private(set) var recordedThrough: UInt64 = 0
    /// Per observer (by uid), up to where the events after its last one are known to hold none its mode takes,
    /// so that each check looks only at what came since.
    var checkedThrough: [String: UInt64] = [:]
    /// Restarts played so far.
    var restarts = 0
    /// How many restarts each observer had seen when it last had a connection, by uid.
    var restartsSeen: [String: Int] = [:]
    /// Recovered resumes that missed more entries than the history keeps in memory, by event mode.
    var recoveredBeyondHistory: [EventMode: Int] = [:]
    /// Recovered resumes across a restart.
    var recoveredAcrossRestart = 0
    /// Fresh snapshots answering a resume that could not be served.
    var freshSnapshots = 0

    init(store: InMemoryRoomStore?, storeCheckpointInterval: UInt64, resumeFocus: Bool) {
        self.store = store
        self.storeCheckpointInterval = storeCheckpointInterval
        self.resumeFocus = resumeFocus
    }

    /// Takes an event the recorder received.
    func record(_ event: JSONValue) {
        guard let sequence = event["seq"]?.intValue.map(UInt64.init) else { return }
        self.events[sequence] = event
        self.recordedThrough = max(self.recordedThrough, sequence)
    }

    /// Everything up to `sequence` has been looked at (entries that are no event sent to anyone included).
    func recorded(through sequence: UInt64) {
        self.recordedThrough = max(self.recordedThrough, sequence)
    }

    /// The events a subscriber in `mode` takes after `first` through `last`, oldest first.
    func taken(by mode: EventMode, after first: UInt64, through last: UInt64) -> [UInt64] {
        guard last > first else { return [] }
        return ((first + 1)...last).filter { sequence in
            self.events[sequence].map { Self.takes(mode, $0) } ?? false
        }
    }

    /// Whether a resume in `mode` from `position` may need an entry the log of memory dropped (those before
    /// `firstRetained`): for `all` any entry, for `notable` a notable event, for `none` a meeting message or an
    /// unmute request (addressed to one participant, counted for every subscriber in the mode).
    func mayNeedDropped(_ mode: EventMode, after position: UInt64, firstRetained: UInt64) -> Bool {
        switch mode {
        case .all:
            return position + 1 < firstRetained
        case .notable, .none:
            guard firstRetained > position + 1 else { return false }
            return ((position + 1)..<firstRetained).contains { sequence in
                guard let event = self.events[sequence] else { return false }
                return Self.takes(mode, event) || event["event"] == "moderation.unmute_requested"
            }
        }
    }

    /// Whether a subscriber in `mode` takes an event, by the event's name (docs/PROTOCOL.md, `join`): `notable`
    /// takes meeting messages, moderation, recording, the end of the session, pins, removals and bans; `none` takes
    /// meeting messages.
    static func takes(_ mode: EventMode, _ event: JSONValue) -> Bool {
        let name = event["event"]?.stringValue ?? ""
        switch mode {
        case .all:
            return true
        case .none:
            return name == "meeting.message"
        case .notable:
            if name == "participant.left" {
                let reason = event["data"]?["reason"]?.stringValue
                return reason == "removed" || reason == "banned"
            }
            return name == "meeting.message" || name.hasPrefix("moderation.") || name.hasPrefix("media.recording_")
                || name == "session.ended" || name == "participant.pinned" || name == "participant.unpinned"
        }
    }
}

/// A participant's state flag: one boolean of the roster entry, changed by the participant or by a moderator.
///
/// Everything about a flag is declared here: its wire name (the raw value, used in `state` messages, roster entries,
/// snapshots and checkpoints), its event names, who sets it, and what a leave does to it. Whatever carries every flag
/// goes through `ordered`: the `state` message (the JSON decoder and the byte scanner), the reducer, the events,
/// snapshots, roster views and their checksums, patches and checkpoints; the byte encoders write each flag's member
/// from a key they encode once per case. So a new flag is a new case here and its line in each property; only rules
/// about one flag in particular (lowering a hand, the sharing permission, time with audio on) name it.
public enum ParticipantFlag: String, Hashable, Sendable, CaseIterable {
    case audioMuted
    case videoPaused
    case presenting
    case handRaised
    case pinned

    /// The wire names of the events for the flag turning on and off.
    public var eventNames: (on: String, off: String) {
        switch self {
        case .audioMuted: return ("participant.audio_muted", "participant.audio_unmuted")
        case .videoPaused: return ("participant.video_paused", "participant.video_resumed")
        case .presenting: return ("participant.screen_share_started", "participant.screen_share_stopped")
        case .handRaised: return ("participant.hand_raised", "participant.hand_lowered")
        case .pinned: return ("participant.pinned", "participant.unpinned")
        }
    }

    /// Whether participants set the flag on themselves with a `state` message; the others are set by moderator
    /// actions only (`pinned`: `spotlight`).
    public var isSetByParticipant: Bool {
        switch self {
        case .audioMuted, .videoPaused, .presenting, .handRaised: return true
        case .pinned: return false
        }
    }

    /// Whether the flag is cleared when the participant's last device leaves.
    public var clearsOnLeave: Bool {
        switch self {
        case .presenting, .handRaised: return true
        case .audioMuted, .videoPaused, .pinned: return false
        }
    }

    /// The member of the roster views' `counts` that counts the flag (`RoomState.viewCounts`), and the value that
    /// counts: `video` counts who has the camera on, so `videoPaused` false. Nil for a flag the views do not count.
    var viewCount: (name: String, whenSet: Bool)? {
        switch self {
        case .audioMuted: return ("muted", true)
        case .videoPaused: return ("video", false)
        case .presenting: return ("presenting", true)
        case .handRaised: return ("handsRaised", true)
        case .pinned: return nil
        }
    }

    /// Whether subscribers in the `notable` event mode see the flag change (the spotlight).
    var isNotable: Bool {
        switch self {
        case .pinned: return true
        case .audioMuted, .videoPaused, .presenting, .handRaised: return false
        }
    }

    /// The flags in declaration order, kept once (`allCases` builds a new array on each use). A flag's position in
    /// it is its ordinal: its bit in `ParticipantFlags`, and its index in the per-flag tables of the encoders.
    static let ordered = ParticipantFlag.allCases

    /// The flag's position in `ordered`.
    var ordinal: Int { Self.ordered.firstIndex(of: self)! }

    /// The flag's bit in `ParticipantFlags`.
    var bit: UInt32 { 1 << UInt32(self.ordinal) }
}

/// A participant's flags as one bit set, bit N for the flag of ordinal N (`ParticipantFlag.ordered`).
public struct ParticipantFlags: Hashable, Sendable {
    private var bits: UInt32 = 0

    /// How many flags the set can hold; `ParticipantFlagTests` checks that every flag has a bit.
    static let capacity = UInt32.bitWidth

    public init() {}

    /// Whether `flag` is set.
    public func contains(_ flag: ParticipantFlag) -> Bool { self.bits & flag.bit != 0 }

    /// Sets or clears `flag`.
    public mutating func set(_ flag: ParticipantFlag, to value: Bool) {
        if value { self.bits |= flag.bit } else { self.bits &= ~flag.bit }
    }

    /// Whether the flag of ordinal `ordinal` is set: what the encoders read while they walk `ParticipantFlag.ordered`
    /// by position, without looking each flag's position up.
    func contains(ordinal: Int) -> Bool { self.bits & (1 << UInt32(ordinal)) != 0 }

    /// Reads or writes one flag.
    public subscript(_ flag: ParticipantFlag) -> Bool {
        get { self.contains(flag) }
        set { self.set(flag, to: newValue) }
    }
}

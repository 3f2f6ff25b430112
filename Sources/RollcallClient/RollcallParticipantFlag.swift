/// The boolean flags of a participant's roster entry (docs/PROTOCOL.md, "snapshot"), with the events of each
/// turning on and off and who sets it.
public enum RollcallParticipantFlag: String, Hashable, Sendable, CaseIterable {
    case audioMuted
    case videoPaused
    case presenting
    case handRaised
    case pinned

    /// The events of the flag turning on and off.
    public var eventNames: (on: RollcallEventName, off: RollcallEventName) {
        switch self {
        case .audioMuted: return (.participantAudioMuted, .participantAudioUnmuted)
        case .videoPaused: return (.participantVideoPaused, .participantVideoResumed)
        case .presenting: return (.participantScreenShareStarted, .participantScreenShareStopped)
        case .handRaised: return (.participantHandRaised, .participantHandLowered)
        case .pinned: return (.participantPinned, .participantUnpinned)
        }
    }

    /// Whether a participant sets the flag itself (`RoomSubscription.updateState(_:)`); `pinned` is set by
    /// moderators only (`spotlight`).
    public var isSetByParticipant: Bool {
        switch self {
        case .audioMuted, .videoPaused, .presenting, .handRaised: return true
        case .pinned: return false
        }
    }

    /// The participant's property for the flag.
    public var property: KeyPath<RosterParticipant, Bool> {
        switch self {
        case .audioMuted: return \.audioMuted
        case .videoPaused: return \.videoPaused
        case .presenting: return \.presenting
        case .handRaised: return \.handRaised
        case .pinned: return \.pinned
        }
    }
}

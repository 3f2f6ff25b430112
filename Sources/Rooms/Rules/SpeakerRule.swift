/// How the active speaker the roster shows follows the reports of who speaks.
public enum SpeakerRule: Hashable, Sendable {
    /// A new speaker is shown once the reports for them have held for this long, in milliseconds, and so is
    /// silence: a cough never takes the spotlight, and a pause does not blank it at once. Subscribers that take
    /// events get the switch (`participant.active_speaker_shown`), not every report.
    case stable(milliseconds: Int64)
    /// The shown speaker changes at most once per this long, in milliseconds, to whoever speaks when the hold ends.
    /// Every report goes to the subscribers that take events.
    case hold(milliseconds: Int64)

    /// Whether the rule is `stable`.
    public var isStable: Bool {
        if case .stable = self { return true }
        return false
    }
}

/// What a token says of its holder and a room's waiting room (the `admission` claim, by room ID).
public enum TokenAdmission: String, Hashable, Sendable, CaseIterable {
    /// The holder waits to be admitted to the call even when the room's waiting room is off (a guest link).
    case wait
    /// The holder joins without waiting even when the room's waiting room is on (the host, a known member).
    case bypass
}

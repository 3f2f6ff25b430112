/// What the shared store answered to an append.
public enum AppendOutcome: Hashable, Sendable {
    /// Appended: the sequence number of the last entry, and the entries as stored, in order.
    case appended(through: UInt64, entries: [SharedLogEntry])
    /// Refused: a seat class of the room is full (`ERR_CALL_FULL`); nothing was appended.
    case full
    /// Refused: `expectedSequence` or device ownership did not hold; nothing was appended.
    case conflict
}

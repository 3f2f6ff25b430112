/// A hard mute: the participant is muted and cannot unmute itself, for a time or until a moderator lifts it (Sendbird's
/// "muted", next to self-muted).
public struct HardMute: Hashable, Sendable {
    /// How long the restriction lasts, in milliseconds; nil until a moderator lifts it (`ask_unmute`, `permissions`).
    public var durationMilliseconds: Int64?

    public init(durationMilliseconds: Int64? = nil) {
        self.durationMilliseconds = durationMilliseconds
    }
}

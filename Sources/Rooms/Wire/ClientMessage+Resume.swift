extension ClientMessage {
    /// Where a reconnecting client left off: the `seq` its roster is at (`resume`), and the highest `seq` it
    /// received on any message about the room (`resumeEvents`; older clients send their last event's, which may
    /// be lower).
    struct Resume: Hashable {
        var roster: UInt64
        var events: UInt64

        /// Up to where the client has everything its subscription takes: messages go out in log order, so a
        /// roster at `roster` means every event up to it was received too.
        var position: UInt64 { max(self.roster, self.events) }
    }
}

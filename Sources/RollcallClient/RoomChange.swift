/// What changed in a subscription, in the order the client applied it.
public enum RoomChange: Hashable, Sendable {
    /// A snapshot replaced the whole roster: the first one, a resync after backpressure (`resync`), a fresh one
    /// after drift, or the answer to a resume that could not be served (`recovered == false`).
    case snapshotReplaced(resync: Bool, recovered: Bool?)
    /// A participant entered the roster view.
    case participantAdded(uid: String)
    /// A participant's entry changed.
    case participantUpdated(uid: String)
    /// A participant left the roster view.
    case participantRemoved(uid: String)
    /// The room entry changed (recording, active speaker, participant count, …).
    case roomUpdated
    /// A room event arrived.
    case eventReceived(RollcallEvent)
    /// The join waits in the room's waiting room at `position` (from 1); it completes once a moderator admits it
    /// (the roster arrives) or fails with `ERR_ADMISSION_DENIED` or `ERR_WAIT_EXPIRED`.
    case waiting(position: Int)
    /// The connection dropped; the roster is stale until the subscription is resumed.
    case connectionLost
    /// The subscription was rejoined after a reconnect: `recovered` tells whether every missed patch and event
    /// was replayed (true) or a fresh snapshot replaced the roster (false).
    case resumed(recovered: Bool)
    /// The roster did not match the server's checksum or missed a patch; a fresh copy was requested.
    case driftDetected(String)
    /// The gateway took the subscription out of the room (the device joined from another connection, or a
    /// refreshed token no longer names the room); `.ended` follows, and the client does not join again on its own.
    case unsubscribed(RollcallUnsubscribeReason)
    /// The subscription ended: left, refused on rejoin, taken out by the gateway, or the client closed. No more
    /// changes follow.
    case ended(RollcallError?)
}

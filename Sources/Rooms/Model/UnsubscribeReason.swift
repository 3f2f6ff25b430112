/// Why the gateway took a connection out of a room without being asked (`{"type":"unsubscribed"}`): the client
/// should not join the room again on its own.
enum UnsubscribeReason: String, Hashable, CaseIterable {
    /// The same user and device joined the room from another connection, which holds the device now ("you joined
    /// from another window").
    case replaced
    /// A refreshed token no longer gives access to the room.
    case accessRevoked = "access_revoked"
}

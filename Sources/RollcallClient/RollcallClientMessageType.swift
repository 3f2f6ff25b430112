/// The `type` of every message a client sends (docs/PROTOCOL.md, "Client → server"); the client's requests take one,
/// and its tests check the list against the shared vectors (`Tests/Vectors/protocol.json`).
public enum RollcallClientMessageType: String, Hashable, Sendable, CaseIterable {
    case auth
    case join
    case view
    case leave
    case state
    case speaker
    case media
    case attributes
    case metadata
    case meeting
    case action
    case permissions
    case query
    case ping
    case signal
}

/// The `type` of every message a client sends (docs/PROTOCOL.md, "Client → server"). The decoder switches over it,
/// so a new message is a case here and its decoding in `ClientMessageDecoder`; the protocol vectors
/// (`Tests/Vectors/protocol.json`) list the same.
public enum ClientMessageType: String, Hashable, Sendable, CaseIterable {
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
    case signal
    case ping
}

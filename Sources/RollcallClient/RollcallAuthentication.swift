/// How the client presents its token (docs/PROTOCOL.md, "Authentication").
public enum RollcallAuthentication: Hashable, Sendable {
    /// The `token` query parameter of the upgrade request.
    case queryParameter
    /// `Authorization: Bearer TOKEN` on the upgrade request.
    case header
    /// An `auth` message, the first message after the upgrade.
    case message
}

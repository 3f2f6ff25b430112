/// How a `StreamConnection` ended, as its delegate is told.
public enum StreamConnectionEnding: Sendable, CustomStringConvertible {
    /// The peer closed its side: the end of the stream, or TLS close_notify.
    case closedByPeer
    /// The connection failed; the error says where.
    case failed(StreamConnectionError)

    public var description: String {
        switch self {
        case .closedByPeer: "closed by the peer"
        case .failed(let error): error.description
        }
    }
}

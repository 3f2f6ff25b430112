/// A status code carried by a Close frame (RFC 6455 §7.4 and the IANA registry).
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// Corresponds to code 1000: the purpose of the connection was fulfilled.
    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    /// Corresponds to code 1001: the server is shutting down or the client navigated away.
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// Corresponds to code 1002: the peer broke the framing rules.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// Corresponds to code 1003: a data type the endpoint cannot accept.
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// Corresponds to code 1005: a Close frame without a status code. Never sent on the wire.
    public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
    /// Corresponds to code 1006: the connection dropped without a Close frame. Never sent on the wire.
    public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
    /// Corresponds to code 1007: message data inconsistent with its type, such as invalid UTF-8 in a text message.
    public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
    /// Corresponds to code 1008: a message that breaks the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// Corresponds to code 1009: a frame or message larger than the endpoint accepts.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// Corresponds to code 1010: the client expected an extension the server did not negotiate.
    public static let mandatoryExtension = WebSocketCloseCode(rawValue: 1010)
    /// Corresponds to code 1011: the server met a condition that kept it from serving the request.
    public static let internalServerError = WebSocketCloseCode(rawValue: 1011)
    /// Corresponds to code 1012: the service is restarting.
    public static let serviceRestart = WebSocketCloseCode(rawValue: 1012)
    /// Corresponds to code 1013: the service is overloaded; try again later.
    public static let tryAgainLater = WebSocketCloseCode(rawValue: 1013)

    /// Whether a peer may send this code in a Close frame.
    ///
    /// 1000–1003 and 1007–1011 come from RFC 6455 §7.4.1, 1012–1014 were registered with IANA later; 3000–3999
    /// are registered by libraries and 4000–4999 are private. Everything else, including 1004–1006 and 1015, which
    /// exist only as local indications, is invalid on the wire and fails the connection with 1002.
    public var isValidOnWire: Bool {
        switch self.rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    public var description: String { String(self.rawValue) }
}

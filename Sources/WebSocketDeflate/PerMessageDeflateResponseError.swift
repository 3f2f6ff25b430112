/// A server's `Sec-WebSocket-Extensions` answer breaks RFC 7692 §7.1 for the client's offer; the client must fail
/// the connection.
public struct PerMessageDeflateResponseError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case malformedHeader(String)
        case notOffered(String)
        case repeatedParameter(String)
        case unexpectedValue(String)
        case invalidWindowBits(String)
        case unknownParameter(String)
    }

    private let kind: Kind

    private init(kind: Kind) {
        self.kind = kind
    }

    /// The header value is not a valid extension list.
    ///
    /// - Parameter headerValue: the header value as received.
    static func malformedHeader(_ headerValue: String) -> PerMessageDeflateResponseError {
        PerMessageDeflateResponseError(kind: .malformedHeader(headerValue))
    }

    /// The server agreed to an extension the client did not offer, or to more than one.
    ///
    /// - Parameter headerValue: the header value as received.
    static func notOffered(_ headerValue: String) -> PerMessageDeflateResponseError {
        PerMessageDeflateResponseError(kind: .notOffered(headerValue))
    }

    /// A permessage-deflate parameter appears twice.
    ///
    /// - Parameter name: the parameter name, lowercased.
    static func repeatedParameter(_ name: String) -> PerMessageDeflateResponseError {
        PerMessageDeflateResponseError(kind: .repeatedParameter(name))
    }

    /// A `*_no_context_takeover` parameter came with a value.
    ///
    /// - Parameter name: the parameter name, lowercased.
    static func unexpectedValue(_ name: String) -> PerMessageDeflateResponseError {
        PerMessageDeflateResponseError(kind: .unexpectedValue(name))
    }

    /// A window size parameter has no value, or one that is not a decimal number from 8 to 15 without leading
    /// zeros.
    ///
    /// - Parameter name: the parameter name, lowercased.
    static func invalidWindowBits(_ name: String) -> PerMessageDeflateResponseError {
        PerMessageDeflateResponseError(kind: .invalidWindowBits(name))
    }

    /// A parameter that RFC 7692 does not define.
    ///
    /// - Parameter name: the parameter name, lowercased.
    static func unknownParameter(_ name: String) -> PerMessageDeflateResponseError {
        PerMessageDeflateResponseError(kind: .unknownParameter(name))
    }

    public var description: String {
        switch self.kind {
        case .malformedHeader(let value):
            return "malformed Sec-WebSocket-Extensions: \(value)"
        case .notOffered(let value):
            return "the server agreed to an extension that was not offered: \(value)"
        case .repeatedParameter(let name):
            return "repeated permessage-deflate parameter \(name)"
        case .unexpectedValue(let name):
            return "\(name) takes no value"
        case .invalidWindowBits(let name):
            return "invalid \(name)"
        case .unknownParameter(let name):
            return "unknown permessage-deflate parameter \(name)"
        }
    }
}

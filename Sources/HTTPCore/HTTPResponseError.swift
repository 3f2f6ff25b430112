/// Why a response head could not be read: it is malformed or over a limit. The connection cannot go on.
public struct HTTPResponseError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case headTooLarge(Int)
        case tooManyFields(Int)
        case malformedStatusLine
        case malformedField
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// The head did not end within the size limit.
    ///
    /// - Parameter limit: the limit in bytes.
    static func headTooLarge(_ limit: Int) -> HTTPResponseError { HTTPResponseError(.headTooLarge(limit)) }

    /// The head has more fields than the limit.
    ///
    /// - Parameter limit: the most fields allowed.
    static func tooManyFields(_ limit: Int) -> HTTPResponseError { HTTPResponseError(.tooManyFields(limit)) }

    /// The status line is not `HTTP/1.x NNN reason`.
    static let malformedStatusLine = HTTPResponseError(.malformedStatusLine)

    /// A field line breaks the grammar.
    static let malformedField = HTTPResponseError(.malformedField)

    public var description: String {
        switch self.kind {
        case .headTooLarge(let limit): return "the response head is larger than \(limit) bytes"
        case .tooManyFields(let limit): return "the response head has more than \(limit) header fields"
        case .malformedStatusLine: return "malformed HTTP status line"
        case .malformedField: return "malformed header field in the HTTP response"
        }
    }
}

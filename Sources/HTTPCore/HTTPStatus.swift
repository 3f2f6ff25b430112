/// The HTTP statuses the server answers with.
public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    /// The numeric code, e.g. 404.
    public let code: Int
    /// The reason phrase, e.g. "Not Found".
    public let reasonPhrase: String

    public init(code: Int, reasonPhrase: String) {
        self.code = code
        self.reasonPhrase = reasonPhrase
    }

    public static let ok = HTTPStatus(code: 200, reasonPhrase: "OK")
    public static let switchingProtocols = HTTPStatus(code: 101, reasonPhrase: "Switching Protocols")
    public static let badRequest = HTTPStatus(code: 400, reasonPhrase: "Bad Request")
    public static let unauthorized = HTTPStatus(code: 401, reasonPhrase: "Unauthorized")
    public static let forbidden = HTTPStatus(code: 403, reasonPhrase: "Forbidden")
    public static let notFound = HTTPStatus(code: 404, reasonPhrase: "Not Found")
    public static let methodNotAllowed = HTTPStatus(code: 405, reasonPhrase: "Method Not Allowed")
    public static let requestTimeout = HTTPStatus(code: 408, reasonPhrase: "Request Timeout")
    public static let conflict = HTTPStatus(code: 409, reasonPhrase: "Conflict")
    public static let lengthRequired = HTTPStatus(code: 411, reasonPhrase: "Length Required")
    public static let payloadTooLarge = HTTPStatus(code: 413, reasonPhrase: "Content Too Large")
    public static let uriTooLong = HTTPStatus(code: 414, reasonPhrase: "URI Too Long")
    public static let upgradeRequired = HTTPStatus(code: 426, reasonPhrase: "Upgrade Required")
    public static let tooManyRequests = HTTPStatus(code: 429, reasonPhrase: "Too Many Requests")
    public static let requestHeaderFieldsTooLarge = HTTPStatus(
        code: 431,
        reasonPhrase: "Request Header Fields Too Large"
    )
    public static let internalServerError = HTTPStatus(code: 500, reasonPhrase: "Internal Server Error")
    public static let notImplemented = HTTPStatus(code: 501, reasonPhrase: "Not Implemented")
    public static let serviceUnavailable = HTTPStatus(code: 503, reasonPhrase: "Service Unavailable")

    public var description: String { "\(self.code) \(self.reasonPhrase)" }

    /// The status with `code` and its reason phrase (RFC 9110), for a code the caller has as a number; a code not
    /// named above gets an empty reason phrase, which HTTP/1.1 allows.
    ///
    /// - Parameter code: the numeric code.
    public init(code: Int) {
        self = Self.named.first { $0.code == code } ?? HTTPStatus(code: code, reasonPhrase: "")
    }

    private static let named: [HTTPStatus] = [
        .ok, .switchingProtocols, .badRequest, .unauthorized, .forbidden, .notFound, .methodNotAllowed,
        .requestTimeout, .conflict, .lengthRequired, .payloadTooLarge, .uriTooLong, .upgradeRequired, .tooManyRequests,
        .requestHeaderFieldsTooLarge, .internalServerError, .notImplemented, .serviceUnavailable,
    ]
}

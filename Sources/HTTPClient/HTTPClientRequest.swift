/// A request for an `HTTPOriginClient`: the method, the target, header fields and a body. The client writes the
/// request line, `Host` (the origin's authority) and `Content-Length` (for a body, and for a method that carries
/// one), then the fields in order, so no caller writes HTTP/1.1 by hand.
public struct HTTPClientRequest: Sendable {
    /// The method, e.g. `POST`.
    public var method: String
    /// The request target: the path, with a query if any, e.g. `/v1/api/rooms?limit=10`.
    public var target: String
    /// Header fields beyond `Host` and `Content-Length`, in order.
    public var headers: [(name: String, value: String)]
    /// The body; empty for none.
    public var body: [UInt8]

    /// - Parameters:
    ///   - method: the method, e.g. `GET`.
    ///   - target: the path, with a query if any.
    ///   - headers: header fields beyond `Host` and `Content-Length`.
    ///   - body: the body; empty for none.
    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// Whether the answer ends with its head whatever its header fields say: the answer to `HEAD` describes the
    /// body a `GET` would get without sending it (RFC 9110 §9.3.2, RFC 9112 §6.3).
    public var answerHasNoBody: Bool { self.method == "HEAD" }

    /// The request's bytes for `origin`, or why it cannot be sent: a method that is not a token, a target that is
    /// empty or holds spaces or control characters, a field name that is not a token, or a field value holding CR,
    /// LF or NUL (any of them would let the request be read as another one).
    ///
    /// - Parameter origin: the server, whose authority is the `Host` field.
    func encoded(for origin: HTTPOrigin) -> Result<[UInt8], HTTPClientError> {
        guard Self.isToken(self.method) else {
            return .failure(HTTPClientError("the method '\(self.method)' is not an HTTP token"))
        }
        guard !self.target.isEmpty, self.target.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
            return .failure(HTTPClientError("the target '\(self.target)' is empty or holds spaces or controls"))
        }
        var head = "\(self.method) \(self.target) HTTP/1.1\r\nHost: \(origin.authority)\r\n"
        if !self.body.isEmpty || Self.methodsWithContent.contains(self.method) {
            head += "Content-Length: \(self.body.count)\r\n"
        }
        for (name, value) in self.headers {
            guard Self.isToken(name) else {
                return .failure(HTTPClientError("the header field name '\(name)' is not an HTTP token"))
            }
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                return .failure(HTTPClientError("the value of the header field '\(name)' holds CR, LF or NUL"))
            }
            head += "\(name): \(value)\r\n"
        }
        head += "\r\n"
        var bytes = Array(head.utf8)
        bytes += self.body
        return .success(bytes)
    }

    /// Methods whose requests carry content, so an empty body is sent as `Content-Length: 0` (RFC 9110 §8.6).
    private static let methodsWithContent: Set<String> = ["POST", "PUT", "PATCH"]

    /// Whether `text` is an RFC 9110 token: one or more of the visible ASCII characters but delimiters.
    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                byte > 0x20 && byte < 0x7F && !Self.delimiters.contains(byte)
            }
    }

    private static let delimiters = Set("\"(),/:;<=>?@[\\]{}".utf8)
}

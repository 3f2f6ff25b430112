import HTTPCore

/// A server's answer to a request.
public struct HTTPClientResponse: Sendable {
    /// The status code, e.g. 200.
    public var status: Int
    /// The status line and header fields.
    public var head: HTTPResponseHead?
    /// The body, when the client keeps bodies (`HTTPClientConfiguration.keepsResponseBody`); empty otherwise.
    public var body: [UInt8]

    /// - Parameters:
    ///   - status: the status code.
    ///   - head: the status line and header fields.
    ///   - body: the body.
    public init(status: Int, head: HTTPResponseHead?, body: [UInt8]) {
        self.status = status
        self.head = head
        self.body = body
    }
}

import EventIO
import HTTPCore

/// A complete plain HTTP request: its head and its body (read up to `Content-Length`).
public struct HTTPRequest: Sendable {
    /// The request head.
    public let head: HTTPRequestHead
    /// The body bytes; empty when the request had none.
    public let body: [UInt8]
    /// The client's address.
    public let remoteAddress: SocketAddress?

    /// - Parameters:
    ///   - head: the parsed request head.
    ///   - body: the body bytes.
    ///   - remoteAddress: the client's address, if known.
    public init(head: HTTPRequestHead, body: [UInt8], remoteAddress: SocketAddress? = nil) {
        self.head = head
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The method, e.g. `POST`.
    public var method: String { self.head.method }
    /// The target's path (before `?`).
    public var path: String { self.head.path }
    /// The target's query (after `?`), if any.
    public var query: String? { self.head.query }
}

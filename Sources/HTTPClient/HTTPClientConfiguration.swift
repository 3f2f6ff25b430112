/// The timeouts and bounds of an `HTTPOriginClient`.
public struct HTTPClientConfiguration: Hashable, Sendable {
    /// Time for connecting, sending and receiving the whole answer of one request, in milliseconds.
    public var timeoutMilliseconds: Int64
    /// Time for a new connection: resolving the name, the TCP connect and the TLS handshake, in milliseconds; the
    /// request's timeout bounds it too.
    public var connectTimeoutMilliseconds: Int64
    /// A connection kept for the next request is closed after this long unused, in milliseconds.
    public var idleConnectionMilliseconds: Int64
    /// The largest answer head (status line and headers), in bytes.
    public var maximumResponseHeadBytes: Int
    /// The largest answer body read, in bytes: a kept body larger than this fails the request; one only counted
    /// closes the connection after the head (its status is the answer).
    public var maximumResponseBodyBytes: Int
    /// Whether answers' bodies are kept for the caller, or only read past (and discarded) to keep the connection.
    public var keepsResponseBody: Bool
    /// The largest request, in bytes: what waits for the socket beyond it fails the connection.
    public var maximumRequestBytes: Int

    /// - Parameters:
    ///   - timeoutMilliseconds: default 10 s.
    ///   - connectTimeoutMilliseconds: default 5 s.
    ///   - idleConnectionMilliseconds: default 15 s.
    ///   - maximumResponseHeadBytes: default 16 KiB.
    ///   - maximumResponseBodyBytes: default 64 KiB.
    ///   - keepsResponseBody: default false.
    ///   - maximumRequestBytes: default 64 MiB.
    public init(
        timeoutMilliseconds: Int64 = 10_000,
        connectTimeoutMilliseconds: Int64 = 5_000,
        idleConnectionMilliseconds: Int64 = 15_000,
        maximumResponseHeadBytes: Int = 16 * 1024,
        maximumResponseBodyBytes: Int = 64 * 1024,
        keepsResponseBody: Bool = false,
        maximumRequestBytes: Int = 64 * 1024 * 1024
    ) {
        self.timeoutMilliseconds = timeoutMilliseconds
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.idleConnectionMilliseconds = idleConnectionMilliseconds
        self.maximumResponseHeadBytes = maximumResponseHeadBytes
        self.maximumResponseBodyBytes = maximumResponseBodyBytes
        self.keepsResponseBody = keepsResponseBody
        self.maximumRequestBytes = maximumRequestBytes
    }
}

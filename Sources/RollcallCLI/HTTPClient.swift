import EventIO
import HTTPCore

#if canImport(Glibc)
import Glibc
#endif

/// A tiny blocking HTTP/1.1 client for `rollcall ctl`: one request per connection (`Connection: close`), plain
/// `http://` to an IP address or `localhost`, with a timeout on every socket operation.
struct HTTPClient {
    /// A response: status, header fields and body.
    struct Response {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        var bodyText: String { String(decoding: self.body, as: UTF8.self) }
    }

    /// The server's address and the path prefix from the URL.
    let address: SocketAddress
    let hostHeader: String
    let basePath: String
    /// Seconds each connect, send and receive may take.
    var timeoutSeconds = 10

    /// - Parameter url: `http://HOST:PORT[/prefix]`, HOST an IPv4 address, `[IPv6]` or `localhost`.
    /// - Throws: `ConfigError` for another scheme or a host name that would need a resolver.
    init(url: String) throws(ConfigError) {
        guard url.hasPrefix("http://") else {
            throw ConfigError("--url: '\(url)' is not an http:// URL (the API has no TLS of its own; use a proxy)")
        }
        var rest = Substring(url.dropFirst("http://".count))
        var path = ""
        if let slash = rest.firstIndex(of: "/") {
            path = String(rest[slash...])
            rest = rest[..<slash]
        }
        var authority = String(rest)
        if authority.hasPrefix("localhost") { authority = "127.0.0.1" + authority.dropFirst("localhost".count) }
        if !authority.contains(":") || authority.hasSuffix("]") { authority += ":80" }
        guard let address = SocketAddress(parsing: authority) else {
            throw ConfigError("--url: '\(rest)' is not IP:PORT or localhost:PORT")
        }
        self.address = address
        self.hostHeader = String(rest)
        self.basePath = path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    /// Sends one request and reads the whole response.
    ///
    /// - Parameters:
    ///   - method: `GET` or `POST`.
    ///   - path: the path below the URL's prefix.
    ///   - headers: extra header fields.
    ///   - body: the body (sent with `Content-Length`), if any.
    func send(
        _ method: String,
        _ path: String,
        headers: [(String, String)] = [],
        body: [UInt8]? = nil
    ) throws(ConfigError) -> Response {
        let fd = try self.connect()
        defer { Glibc.close(fd) }
        var head = "\(method) \(self.basePath)\(path) HTTP/1.1\r\nHost: \(self.hostHeader)\r\nConnection: close\r\n"
        head += "User-Agent: rollcall-ctl\r\nAccept: application/json\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body {
            head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        let request = Array(head.utf8) + (body ?? [])
        var offset = 0
        while offset < request.count {
            let written = request.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { throw ConfigError("cannot send to \(self.address): errno \(errno)") }
            offset += written
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else {
                // A reset after a complete response (the server closed first) still leaves a usable answer.
                if !received.isEmpty, let response = Self.parse(received) { return response }
                throw ConfigError("no answer from \(self.address): errno \(errno)")
            }
            received.append(contentsOf: buffer[0..<count])
            if let response = Self.parse(received), Self.isComplete(response, in: received) { return response }
        }
        guard let response = Self.parse(received) else {
            throw ConfigError("malformed HTTP response from \(self.address)")
        }
        return response
    }

    private func connect() throws(ConfigError) -> Int32 {
        do {
            return try Socket.connectBlocking(to: self.address, timeoutSeconds: Double(self.timeoutSeconds))
        } catch {
            throw ConfigError("cannot connect to \(self.address): \(String(cString: strerror(error.errnoCode)))")
        }
    }

    /// Parses a response head and what arrived of its body; nil while the head is incomplete or malformed.
    static func parse(_ bytes: [UInt8]) -> Response? {
        var parser = HTTPResponseParser()
        guard case .complete(let head) = bytes.withUnsafeBytes({ parser.parse($0) }) else { return nil }
        let headers = head.fields.map { field in
            (
                name: String(decoding: head.bytes[field.name], as: UTF8.self),
                value: String(decoding: head.bytes[field.value], as: UTF8.self)
            )
        }
        return Response(status: head.status, headers: headers, body: Array(bytes[head.size...]))
    }

    private static func isComplete(_ response: Response, in bytes: [UInt8]) -> Bool {
        guard
            let length = response.headers.first(where: { $0.name.lowercased() == "content-length" })
                .flatMap({ Int($0.value) })
        else { return false }
        return response.body.count >= length
    }
}

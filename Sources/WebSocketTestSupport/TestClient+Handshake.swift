import Foundation
import WebSocketServer

extension TestClient {
    /// Sends an upgrade request and reads the response head; the bytes after it stay buffered for frames.
    ///
    /// - Parameters:
    ///   - path: the request target.
    ///   - extraHeaders: header lines to add, e.g. `Sec-WebSocket-Extensions` or `Origin`.
    /// - Returns: the response head.
    @discardableResult
    public func handshake(path: String = "/echo", extraHeaders: [(String, String)] = []) throws -> TestHTTPResponse {
        try self.send(Self.upgradeRequest(path: path, extraHeaders: extraHeaders))
        return try self.readResponseHead()
    }

    /// An upgrade request with a fixed key, as bytes.
    public static func upgradeRequest(
        path: String = "/echo",
        method: String = "GET",
        extraHeaders: [(String, String)] = []
    ) -> [UInt8] {
        var request = "\(method) \(path) HTTP/1.1\r\n"
        request += "Host: localhost\r\n"
        request += "Upgrade: websocket\r\n"
        request += "Connection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        request += "Sec-WebSocket-Version: 13\r\n"
        for (name, value) in extraHeaders { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        return Array(request.utf8)
    }

    /// Reads an HTTP response head (up to the blank line).
    public func readResponseHead() throws -> TestHTTPResponse {
        let deadline = Date().addingTimeInterval(self.timeout)
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let end = Self.find(terminator, in: self.received) {
                let head = String(decoding: self.received[0..<end], as: UTF8.self)
                self.received.removeFirst(end + terminator.count)
                return try Self.parseHead(head)
            }
            guard try self.receiveSome(until: deadline) else {
                throw TestClientError("connection closed before a response head (\(self.received.count) bytes)")
            }
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return start }
        }
        return nil
    }

    private static func parseHead(_ head: String) throws -> TestHTTPResponse {
        let lines = head.components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw TestClientError("bad status line: \(lines[0])")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.append((name, value))
        }
        return TestHTTPResponse(status: status, headers: headers)
    }
}

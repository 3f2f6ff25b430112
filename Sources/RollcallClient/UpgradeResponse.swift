import WebSocketCore
import WebSocketDeflate

/// The server's answer to the upgrade request, checked against RFC 6455 §4.1 and RFC 7692 §7.1.
struct UpgradeResponse {
    var status: Int
    var headers: [(name: String, value: String)]

    /// Parses a response head (without the blank line).
    init?(head: [UInt8]) {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).makeIterator()
        guard let statusLine = lines.next() else { return nil }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else { return nil }
        self.status = status
        self.headers = []
        while let line = lines.next() {
            guard !line.isEmpty else { continue }
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingSpaces()
            self.headers.append((name, value))
        }
    }

    /// Every value of a header field, matched without regard to case.
    func values(of name: String) -> [String] {
        let lowered = name.lowercased()
        return self.headers.filter { $0.name.lowercased() == lowered }.map(\.value)
    }

    /// Checks the upgrade and returns the inflater for the agreed compression, if any.
    ///
    /// - Parameters:
    ///   - key: the `Sec-WebSocket-Key` the client sent.
    ///   - offeredCompression: whether the client offered permessage-deflate.
    func validate(key: String, offeredCompression: Bool) throws(RollcallError) -> PerMessageInflater? {
        guard self.status == 101 else {
            throw RollcallError(.handshake("the server answered \(self.status) instead of 101"))
        }
        guard self.values(of: "Upgrade").contains(where: { $0.lowercased() == "websocket" }) else {
            throw RollcallError(.handshake("the response lacks Upgrade: websocket"))
        }
        let connection = self.values(of: "Connection").flatMap { $0.split(separator: ",") }
        guard connection.contains(where: { $0.trimmingSpaces().lowercased() == "upgrade" }) else {
            throw RollcallError(.handshake("the response lacks Connection: upgrade"))
        }
        let accept = self.values(of: "Sec-WebSocket-Accept")
        guard accept.count == 1, accept[0] == WebSocketHandshake.acceptValue(forKey: key) else {
            throw RollcallError(.handshake("Sec-WebSocket-Accept does not match the key"))
        }
        let extensions = self.values(of: "Sec-WebSocket-Extensions").joined(separator: ", ")
        do throws(PerMessageDeflateResponseError) {
            // Client messages go out uncompressed, so only the inflater for server messages is needed.
            let agreed = try PerMessageDeflateClientParameters.validate(
                responseHeaderValue: extensions,
                offered: offeredCompression
            )
            return agreed?.makeInflater()
        } catch {
            throw RollcallError(.handshake(error.description))
        }
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> String {
        let trimmed = self.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }
        return String(trimmed.reversed())
    }
}

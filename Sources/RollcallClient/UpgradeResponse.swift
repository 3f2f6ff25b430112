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
        guard !extensions.isEmpty else { return nil }
        guard let offers = WebSocketExtensionOffer.parse(extensions) else {
            throw RollcallError(.handshake("malformed Sec-WebSocket-Extensions: \(extensions)"))
        }
        guard !offers.isEmpty else { return nil }
        guard offeredCompression, offers.count == 1, offers[0].name.lowercased() == "permessage-deflate" else {
            throw RollcallError(.handshake("the server agreed to an extension that was not offered: \(extensions)"))
        }
        var windowBits = 15
        var resets = false
        var seen = Set<String>()
        for parameter in offers[0].parameters {
            let name = parameter.name.lowercased()
            guard seen.insert(name).inserted else {
                throw RollcallError(.handshake("repeated permessage-deflate parameter \(name)"))
            }
            switch name {
            case "server_no_context_takeover":
                guard parameter.value == nil else { throw RollcallError(.handshake("\(name) takes no value")) }
                resets = true
            case "client_no_context_takeover":
                guard parameter.value == nil else { throw RollcallError(.handshake("\(name) takes no value")) }
            case "server_max_window_bits":
                guard let text = parameter.value, let bits = Int(text), (8...15).contains(bits) else {
                    throw RollcallError(.handshake("invalid server_max_window_bits"))
                }
                windowBits = bits
            case "client_max_window_bits":
                // Client messages go out uncompressed, so any window the server names is fine.
                guard let text = parameter.value, let bits = Int(text), (8...15).contains(bits) else {
                    throw RollcallError(.handshake("invalid client_max_window_bits"))
                }
            default:
                throw RollcallError(.handshake("unknown permessage-deflate parameter \(name)"))
            }
        }
        return PerMessageInflater(windowBits: windowBits, resetsAfterEachMessage: resets)
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> String {
        let trimmed = self.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }
        return String(trimmed.reversed())
    }
}

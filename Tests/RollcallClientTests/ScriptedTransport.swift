import Foundation
import JSONCoding
import RollcallClient

/// A `RollcallTransport` without sockets that answers like a gateway holding one room: the welcome on open, an ack
/// and a snapshot (or `resumed`) for a join, an ack for everything else. Tests push patches and end it by hand.
final class ScriptedTransport: RollcallTransport, @unchecked Sendable {
    let request: RollcallTransportRequest
    private let lock = NSLock()
    private var handler: (@Sendable (RollcallTransportEvent) -> Void)?
    private var sentMessages: [JSONValue] = []
    private let roster: JSONObject
    private let sequence: Int64

    /// Creates a transport for a room whose roster is at `sequence`.
    init(request: RollcallTransportRequest, roster: JSONObject, sequence: Int64) {
        self.request = request
        self.roster = roster
        self.sequence = sequence
    }

    var isCompressionNegotiated: Bool { false }

    /// Every message the client sent, parsed.
    var sent: [JSONValue] { self.lock.withLock { self.sentMessages } }

    func start(_ handler: @escaping @Sendable (RollcallTransportEvent) -> Void) {
        self.lock.withLock { self.handler = handler }
        handler(.opened)
        self.push(["type": "welcome", "uid": "bob", "name": "Bob", "expiresAt": 4_000_000_000])
    }

    func send(text: String) throws(RollcallError) {
        guard let message = try? JSONParser.parse(text) else { throw RollcallError.transport("not JSON") }
        self.lock.withLock { self.sentMessages.append(message) }
        let id = message["id"] ?? .null
        let room = message["room"] ?? .null
        switch message["type"]?.stringValue {
        case "join" where message["resume"] != nil:
            self.push(["type": "ack", "id": id, "room": room, "seq": .int(self.sequence), "changed": true])
            self.push(["type": "resumed", "room": room, "seq": .int(self.sequence), "recovered": true])
        case "join":
            self.push(["type": "ack", "id": id, "room": room, "seq": .int(self.sequence), "changed": true])
            self.push([
                "type": "snapshot", "room": room, "seq": .int(self.sequence), "roster": .object(self.roster),
                "checksum": .string(RosterChecksum.hex(of: self.roster)),
            ])
        default:
            self.push(["type": "ack", "id": id, "room": room, "seq": .int(self.sequence), "changed": false])
        }
    }

    func close(code: UInt16, reason: String) {
        self.end(RollcallCloseInfo(code: code, reason: reason, wasClean: true, initiatedLocally: true))
    }

    func abort() {
        self.end(RollcallCloseInfo(code: nil, reason: "dropped", wasClean: false, initiatedLocally: true))
    }

    /// Delivers a message from the "gateway".
    func push(_ message: JSONValue) {
        self.lock.withLock { self.handler }?(.text(JSONWriter.string(message)))
    }

    /// Ends the connection as the server would, with a close code.
    func closeFromServer(code: UInt16, reason: String) {
        self.end(RollcallCloseInfo(code: code, reason: reason, wasClean: true, initiatedLocally: false))
    }

    private func end(_ info: RollcallCloseInfo) {
        let handler = self.lock.withLock {
            defer { self.handler = nil }
            return self.handler
        }
        handler?(.closed(info))
    }
}

/// The transports a factory made, in order.
final class TransportLog: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [ScriptedTransport] = []

    func append(_ transport: ScriptedTransport) { self.lock.withLock { self.storage.append(transport) } }

    var all: [ScriptedTransport] { self.lock.withLock { self.storage } }
}

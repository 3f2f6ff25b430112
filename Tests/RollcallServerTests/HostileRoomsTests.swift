import EventIO
import Foundation
import Glibc
import JSONCoding
import RollcallServer
import Rooms
import Storage
import Testing
import TokenAuth
import WebSocketDeflate
import WebSocketServer
import WebSocketTestSupport
import Webhooks

/// The rooms protocol on a live server, as `rollcall serve` runs it: the gateway on its own thread behind the
/// WebSocket server, on loopback port 0.
final class LiveRooms: @unchecked Sendable {
    static let secret = "hostile-input-test-secret-0123456789abcdef"
    let server: Server
    let runtime: GatewayRuntime
    let address: SocketAddress
    private let signer: TokenSigner

    init(
        server configureServer: (inout ServerConfiguration) -> Void = { _ in },
        rooms configureRooms: (inout RoomsConfiguration) -> Void = { _ in },
        threads: Int = 1,
        store: SQLiteRoomStore? = nil,
        webhooks: WebhookDispatcher? = nil
    ) throws {
        var configuration = ServerConfiguration()
        configuration.listen = [SocketAddress(parsing: "127.0.0.1:0")!]
        configuration.eventLoopCount = 1
        configuration.shutdownGracePeriodMilliseconds = 300
        configuration.closeTimeoutMilliseconds = 1_000
        configureServer(&configuration)
        var rooms = RoomsConfiguration()
        rooms.patchWindowMilliseconds = 0
        configureRooms(&rooms)
        let key = try TokenKey(keyID: "test", secret: Self.secret)
        self.signer = TokenSigner(key: key)
        let verifier = try TokenVerifier(keys: [key], maximumTokenLength: TokenVerifier.maximumTokenLengthLimit)
        self.runtime = try GatewayRuntime(
            configuration: rooms, verifier: verifier, path: "/v1/ws", store: store, webhooks: webhooks,
            threads: threads)
        self.server = Server(configuration: configuration, routes: [self.runtime.route])
        self.runtime.start()
        do {
            try self.server.start()
        } catch {
            self.runtime.stop()
            throw error
        }
        self.address = self.server.localAddresses.first!
    }

    func stop() {
        self.server.shutDownGracefully()
        self.runtime.stop()
    }

    static func with<Result>(
        server: (inout ServerConfiguration) -> Void = { _ in },
        rooms: (inout RoomsConfiguration) -> Void = { _ in },
        threads: Int = 1,
        store: SQLiteRoomStore? = nil,
        webhooks: WebhookDispatcher? = nil,
        _ body: (LiveRooms) throws -> Result
    ) throws -> Result {
        let live = try LiveRooms(server: server, rooms: rooms, threads: threads, store: store, webhooks: webhooks)
        defer { live.stop() }
        return try body(live)
    }

    func token(_ uid: String, rooms: [String: TokenRole] = [:], groups: [String] = []) throws -> String {
        let now = Int64(time(nil))
        return try self.signer.sign(
            TokenClaims(subject: uid, expiresAt: now + 3600, rooms: rooms, groups: groups, issuedAt: now))
    }

    /// A client on /v1/ws that authenticated with `token` (the welcome is read): in the query, or in an `auth`
    /// message when it is too long for a request line.
    ///
    /// - Parameters:
    ///   - token: the access token.
    ///   - compression: a permessage-deflate offer (the header value); compressed messages are then inflated with
    ///     the window the server confirms.
    ///   - receiveBufferBytes: the client socket's receive buffer, set before it connects.
    func client(
        _ token: String, compression offer: String? = nil, receiveBufferBytes: Int32? = nil
    ) throws -> RoomsClient {
        let client = try TestClient(connectingTo: self.address, receiveBufferBytes: receiveBufferBytes)
        let inQuery = token.utf8.count < 2048
        let response = try client.handshake(
            path: inQuery ? "/v1/ws?token=\(token)" : "/v1/ws",
            extraHeaders: offer.map { [("Sec-WebSocket-Extensions", $0)] } ?? []
        )
        guard response.status == 101 else { throw TestClientError("handshake answered \(response.status)") }
        let rooms = RoomsClient(client, agreedCompression: response.header("Sec-WebSocket-Extensions"))
        if !inQuery {
            try rooms.send(.object(JSONObject(uniqueKeysWithValues: [("type", "auth"), ("token", .string(token))])))
        }
        let welcome = try rooms.next()
        guard welcome["type"]?.stringValue == "welcome" else { throw TestClientError("expected a welcome: \(welcome)") }
        return rooms
    }

    /// The rooms that exist in the gateway.
    var roomIDs: [String] { self.runtime.inspect { $0.roomIDs } }
}

/// JSON messages over a test client.
final class RoomsClient {
    let client: TestClient
    private var nextID: Int64 = 1
    /// The inflater for compressed messages, when the server agreed to permessage-deflate.
    private let inflater: PerMessageInflater?
    /// Text messages received compressed (RSV1) and uncompressed.
    private(set) var compressedMessages = 0
    private(set) var uncompressedMessages = 0

    /// - Parameters:
    ///   - client: the upgraded connection.
    ///   - agreedCompression: the server's `Sec-WebSocket-Extensions` answer, if any.
    init(_ client: TestClient, agreedCompression: String? = nil) {
        self.client = client
        self.inflater = agreedCompression.map { answer in
            // server_max_window_bits=N limits the server's window; without it the server may use 15.
            let bits = answer.split(separator: ";").compactMap { parameter -> Int? in
                let pair = parameter.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
                return pair.count == 2 && pair[0] == "server_max_window_bits" ? Int(pair[1]) : nil
            }.first
            let resets = answer.contains("server_no_context_takeover")
            return PerMessageInflater(windowBits: bits ?? 15, resetsAfterEachMessage: resets)
        }
    }

    /// The next text message's payload, inflated when it came compressed.
    func nextText() throws -> [UInt8] {
        let frame = try self.client.readFrame()
        guard frame.opcode == .text else {
            throw TestClientError("expected a text message, got \(frame.opcode) \(frame.closeCode ?? 0)")
        }
        guard frame.header.rsv1 else {
            self.uncompressedMessages += 1
            return frame.payload
        }
        guard let inflater = self.inflater else {
            throw TestClientError("a compressed message without permessage-deflate")
        }
        self.compressedMessages += 1
        var text: [UInt8] = []
        try frame.payload.withUnsafeBytes { try inflater.inflate($0, isFinal: true, into: &text, limit: 16 << 20) }
        return text
    }

    func send(_ message: JSONValue) throws {
        try self.client.sendFrame(.text, JSONWriter.bytes(message))
    }

    /// The next text message as a JSON object (throws on a Close).
    func next() throws -> JSONObject {
        guard case .object(let object) = try JSONParser.parse(try self.nextText()) else {
            throw TestClientError("not an object")
        }
        return object
    }

    /// Reads messages until the answer to request `id` (an ack, result, error or pong).
    func answer(to id: Int64) throws -> JSONObject {
        for _ in 0..<10_000 {
            let message = try self.next()
            if message["id"] == .int(id) { return message }
        }
        throw TestClientError("no answer to \(id)")
    }

    /// Sends `fields` with a fresh id and returns the answer.
    func request(_ fields: [(String, JSONValue)]) throws -> JSONObject {
        let id = self.nextID
        self.nextID += 1
        try self.send(.object(JSONObject(uniqueKeysWithValues: fields + [("id", .int(id))])))
        return try self.answer(to: id)
    }

    /// A protocol-level ping round trip.
    func ping() -> Bool {
        (try? self.request([("type", "ping")]))?["type"]?.stringValue == "pong"
    }

    func join(_ room: String, as kind: String = "participant") throws -> JSONObject {
        try self.request([("type", "join"), ("room", .string(room)), ("as", .string(kind))])
    }
}

/// Runs `attack` while a bystander, joined to room "calm", keeps doing protocol round trips through the gateway.
func underAttack(rooms live: LiveRooms, _ attack: () throws -> Void) throws {
    let bystander = try live.client(live.token("bystander", groups: ["calm"]))
    #expect(try bystander.join("calm")["type"]?.stringValue == "ack")
    #expect(bystander.ping())
    let monitor = BystanderMonitor { bystander.ping() }
    do {
        try attack()
    } catch {
        _ = monitor.stop()
        throw error
    }
    monitor.expectServed()
}

@Suite("Hostile input on the rooms protocol over live sockets")
struct HostileRoomsTests {
    @Test("Malformed protocol messages are answered ERR_BAD_REQUEST; an oversized one gets 1009")
    func malformedAndOversizedMessages() throws {
        try LiveRooms.with(server: {
            $0.messageLimits.maximumMessageSize = 64 * 1024
            $0.messageLimits.maximumFrameSize = 64 * 1024
        }) { live in
            try underAttack(rooms: live) {
                let attacker = try live.client(live.token("mallory", groups: ["target"]))
                let malformed: [String] = [
                    "{", "}", "[]", "null", "42", "\"join\"", "{\"type\":}", "{\"type\":\"join\",}", "{'type':'join'}",
                    "{\"type\":\"nope\"}", "{\"type\":\"join\",\"room\":42}",
                    "{\"type\":\"join\",\"room\":\"target\",\"role\":\"admin\"}",
                    "{\"type\":\"state\",\"room\":\"target\",\"audioMuted\":\"yes\"}",
                    "{\"type\":\"join\",\"room\":\"" + String(repeating: "r", count: 5_000) + "\"}",
                    String(repeating: "[", count: 30_000) + String(repeating: "]", count: 30_000),
                    "{\"type\":\"ping\",\"id\":" + String(repeating: "9", count: 10_000) + "}",
                    "{\"type\":\"ping\"}   x",
                ]
                for text in malformed {
                    try attacker.client.sendFrame(.text, Array(text.utf8))
                    let answer = try attacker.next()
                    #expect(answer["type"]?.stringValue == "error", "\(text.prefix(40))")
                    #expect(answer["code"]?.stringValue == "ERR_BAD_REQUEST", "\(text.prefix(40))")
                }
                try attacker.client.sendFrame(.binary, [0, 1, 2])
                #expect(try attacker.next()["code"]?.stringValue == "ERR_BAD_REQUEST")
                // None of it changed anything, and the connection is still good.
                #expect(live.roomIDs == ["calm"])
                #expect(attacker.ping())
                // A message over the limit ends the connection.
                let huge =
                    "{\"type\":\"meeting\",\"group\":\"target\",\"text\":\"" + String(repeating: "x", count: 70_000)
                    + "\"}"
                try attacker.client.sendFrame(.text, Array(huge.utf8))
                #expect(try attacker.client.readCloseCode() == 1009)
                #expect(attacker.client.serverClosesConnection(within: 2))
            }
        }
    }

    @Test("Joins to a thousand rooms from one socket stop at the per-connection limit with ERR_TOO_MANY_ROOMS")
    func joinsToThousandsOfRooms() throws {
        let limit = 16
        // Room ids of one or two characters, so a thousand of them fit in a token.
        let rooms = (0..<1_000).map { String($0, radix: 36) }
        try LiveRooms.with(server: { $0.maximumMessagesPerSecond = 0 }, rooms: { $0.maximumRoomsPerSession = limit }) {
            live in
            try underAttack(rooms: live) {
                let attacker = try live.client(live.token("mallory", groups: rooms))
                var acks = 0
                var refusals = 0
                for room in rooms {
                    let answer = try attacker.join(room)
                    if answer["type"]?.stringValue == "ack" {
                        acks += 1
                    } else if answer["code"]?.stringValue == "ERR_TOO_MANY_ROOMS" {
                        refusals += 1
                    } else {
                        Issue.record("unexpected answer to joining \(room): \(answer)")
                    }
                }
                #expect(acks == limit)
                #expect(refusals == rooms.count - limit)
                // Only the rooms joined exist; the refused joins created nothing.
                #expect(live.roomIDs == (["calm"] + rooms.prefix(limit)).sorted())
                let members = try attacker.request([
                    ("type", "query"), ("query", "members"), ("room", .string(rooms[0])),
                ])
                #expect(members["uids"] == .array([.string("mallory")]))
                #expect(try attacker.join(rooms[999])["code"]?.stringValue == "ERR_TOO_MANY_ROOMS")
                // Leaving one frees a place.
                #expect(
                    try attacker.request([("type", "leave"), ("room", .string(rooms[0]))])["type"]?.stringValue == "ack"
                )
                #expect(try attacker.join(rooms[999])["type"]?.stringValue == "ack")
            }
        }
    }

    @Test("A room over its subscriber limit answers ERR_ROOM_FULL to participants and observers")
    func roomSubscriberLimit() throws {
        try LiveRooms.with(rooms: { $0.maximumSubscribersPerRoom = 3 }) { live in
            try underAttack(rooms: live) {
                var watchers: [RoomsClient] = []
                for index in 0..<3 {
                    let watcher = try live.client(live.token("viewer-\(index)", rooms: ["big": .viewer]))
                    #expect(try watcher.join("big", as: "observer")["type"]?.stringValue == "ack")
                    watchers.append(watcher)
                }
                let late = try live.client(live.token("late", rooms: ["big": .viewer]))
                #expect(try late.join("big", as: "observer")["code"]?.stringValue == "ERR_ROOM_FULL")
                let speaker = try live.client(live.token("speaker", groups: ["big"]))
                #expect(try speaker.join("big")["code"]?.stringValue == "ERR_ROOM_FULL")
                #expect(live.runtime.inspect { $0.roomState("big")?.joinedParticipants.count } == 0)
                #expect(try watchers[0].request([("type", "leave"), ("room", "big")])["type"]?.stringValue == "ack")
                #expect(try speaker.join("big")["type"]?.stringValue == "ack")
            }
        }
    }

    @Test("A flood of protocol messages is closed with 1008; the room keeps what came before")
    func protocolMessageFlood() throws {
        try LiveRooms.with(server: {
            $0.maximumMessagesPerSecond = 100
            $0.messageBurst = 200
        }) { live in
            try underAttack(rooms: live) {
                let attacker = try live.client(live.token("mallory", groups: ["calm"]))
                #expect(try attacker.join("calm")["type"]?.stringValue == "ack")
                var flood: [UInt8] = []
                for index in 0..<3_000 {
                    let text = "{\"type\":\"state\",\"room\":\"calm\",\"handRaised\":\(index % 2 == 0)}"
                    flood += attacker.client.frame(.text, Array(text.utf8))
                }
                try attacker.client.send(flood)
                #expect(try attacker.client.readCloseCode() == 1008)
                #expect(attacker.client.serverClosesConnection(within: 2))
                #expect(live.server.statistics.snapshot["connections_rate_limited"] == 1)
            }
        }
    }

    @Test("A member that never reads is closed at the write queue limit after whole messages only")
    func memberThatNeverReadsGetsWholeMessagesThenTheClose() throws {
        try LiveRooms.with(server: {
            $0.writeQueueLowWatermark = 8 * 1024
            $0.writeQueueHighWatermark = 32 * 1024
            $0.writeQueueLimit = 96 * 1024
            $0.maximumMessagesPerSecond = 100_000
            $0.messageBurst = 100_000
        }) { live in
            try underAttack(rooms: live) {
                let slow = try live.client(live.token("slow", groups: ["big"]), receiveBufferBytes: 4096)
                let sender = try live.client(live.token("sender", rooms: ["big": .moderator]))
                // Each meeting message goes to the slow member as one shared frame; the socket takes part of one
                // when the queue reaches its limit.
                let text = String(repeating: "x", count: 1_000)
                var sent = 0
                while sent < 10_000 && live.server.statistics.snapshot["slow_consumers_closed"] != 1 {
                    try sender.send(
                        .object(
                            JSONObject(uniqueKeysWithValues: [
                                ("type", "meeting"), ("id", .int(Int64(sent + 1))), ("group", "big"),
                                ("sessionId", .string("call-\(sent)")), ("text", .string(text)),
                            ])))
                    sent += 1
                    // The sender reads its answers (and its own copies), so only the slow member falls behind.
                    if sent % 20 == 0 { _ = try sender.answer(to: Int64(sent)) }
                }
                #expect(live.server.statistics.snapshot["slow_consumers_closed"] == 1)
                // Every message before the Close arrives whole and parses; the Close says 1008.
                var delivered = 0
                var closeCode: UInt16?
                while closeCode == nil {
                    let frame = try slow.client.readFrame()
                    if frame.opcode == .connectionClose {
                        closeCode = frame.closeCode
                    } else {
                        let message = try? JSONParser.parse(frame.payload)
                        #expect(
                            frame.opcode == .text && message != nil,
                            "message \(delivered) arrived cut short: \(frame.opcode), \(frame.payload.count) bytes")
                        delivered += 1
                    }
                }
                #expect(closeCode == 1008)
                #expect(delivered > 0 && delivered < sent)
                #expect(slow.client.serverClosesConnection(within: 2))
            }
        }
    }
}

import JSONCoding
import RoomsTesting
import TokenAuth

@testable import Rooms

/// A gateway wired to an in-memory transport, a manual clock and a verifier with a test key, with helpers to mint
/// tokens, open sessions, send messages and read what each session received.
final class RoomsNodeHarness {
    static let secret = "rollcall-gateway-scenario-tests-shared-secret"
    static let otherSecret = "a-different-secret-that-the-gateway-does-not-know"

    let clock: ManualClock
    let transport: InMemoryTransport
    let gateway: RoomsNode
    let signer: TokenSigner
    private var nextSessionID: UInt64 = 1

    /// - Parameters:
    ///   - audience: the `aud` the verifier requires, if any.
    ///   - clock: the clock; several harnesses share one when they are nodes of one cluster.
    ///   - configure: changes to the default configuration.
    init(
        audience: String? = nil,
        clock: ManualClock = ManualClock(),
        store: InMemoryRoomStore? = nil,
        configure: (inout RoomsConfiguration) -> Void = { _ in }
    ) throws {
        var configuration = RoomsConfiguration()
        configure(&configuration)
        let key = try TokenKey(secret: Self.secret)
        self.clock = clock
        self.signer = TokenSigner(key: key)
        self.transport = InMemoryTransport()
        self.gateway = RoomsNode(
            configuration: configuration,
            verifier: try TokenVerifier(keys: [key], audience: audience),
            transport: self.transport,
            clock: { clock.now }
        )
        self.store = store
        self.gateway.store = store
    }

    /// The room store, when the scenario has one: committed after every message and tick, as the runtime does
    /// once per iteration of the rooms thread.
    let store: InMemoryRoomStore?

    // MARK: Time

    /// Now, in whole seconds (the unit of token times).
    var nowSeconds: Int64 { self.clock.now / 1000 }

    /// Moves the clock forward and runs what is due.
    func advance(milliseconds: Int64) {
        self.clock.advance(milliseconds: milliseconds)
        self.gateway.tick()
        try? self.store?.commit()
    }

    // MARK: Tokens

    /// Mints a token signed with the test key; times are relative to the clock.
    func token(
        _ uid: String,
        name: String? = nil,
        rooms: [String: TokenRole] = [:],
        groups: [String] = [],
        caps: [String] = [],
        attributes: [String: String] = [:],
        admission: [String: TokenAdmission] = [:],
        expiresIn: Int64 = 3600,
        notBeforeIn: Int64? = nil,
        audience: [String] = [],
        secret: String = RoomsNodeHarness.secret
    ) throws -> String {
        let claims = TokenClaims(
            subject: uid,
            expiresAt: self.nowSeconds + expiresIn,
            name: name,
            rooms: rooms,
            groups: groups,
            capabilities: caps,
            attributes: attributes,
            admission: admission,
            notBefore: notBeforeIn.map { self.nowSeconds + $0 },
            audience: audience
        )
        let signer = secret == Self.secret ? self.signer : TokenSigner(key: try TokenKey(secret: secret))
        return try signer.sign(claims)
    }

    /// A token with `alg: none` and no signature, crafted by hand as an attacker would.
    func unsignedToken(_ uid: String, rooms: [String: String] = [:]) -> String {
        let roomMembers = rooms.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\"\($0.value)\"" }
        let header = #"{"alg":"none","typ":"JWT"}"#
        let expiry = self.nowSeconds + 3600
        let payload = #"{"sub":"\#(uid)","exp":\#(expiry),"rooms":{\#(roomMembers.joined(separator: ","))}}"#
        return Base64URLText.encode(header) + "." + Base64URLText.encode(payload) + "."
    }

    // MARK: Sessions

    /// Opens a session, with the token from the upgrade request or none; nothing is drained.
    @discardableResult
    func open(token: String?) -> SessionID {
        let id = SessionID(self.nextSessionID)
        self.nextSessionID += 1
        self.gateway.sessionOpened(id, token: token)
        return id
    }

    /// Opens an authenticated session for `uid` and drains its welcome.
    func connect(
        _ uid: String,
        name: String? = nil,
        rooms: [String: TokenRole] = [:],
        groups: [String] = [],
        caps: [String] = [],
        attributes: [String: String] = [:],
        admission: [String: TokenAdmission] = [:]
    ) throws -> SessionID {
        let id = self.open(
            token: try self.token(
                uid, name: name, rooms: rooms, groups: groups, caps: caps, attributes: attributes,
                admission: admission))
        let welcome = self.drain(id)
        guard welcome.count == 1, welcome[0]["type"] == "welcome" else {
            throw HarnessError.unexpected("no welcome for \(uid): \(welcome)")
        }
        return id
    }

    /// Sends a message, encoded as JSON bytes, from a session.
    func send(_ id: SessionID, _ message: JSONValue) {
        self.sendText(id, JSONWriter.string(message))
    }

    /// Sends raw text from a session.
    func sendText(_ id: SessionID, _ text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { self.gateway.sessionReceived(id, text: $0) }
        try? self.store?.commit()
    }

    /// Drains the session, sends a message and returns what the session received in answer.
    @discardableResult
    func request(_ id: SessionID, _ message: JSONValue) -> [JSONValue] {
        _ = self.drain(id)
        self.send(id, message)
        return self.drain(id)
    }

    /// Joins a room and drains the answer; throws unless it is an ack.
    @discardableResult
    func join(
        _ id: SessionID,
        _ room: String,
        device: String? = nil,
        callType: String? = nil,
        as kind: String? = nil,
        resume: Int64? = nil
    ) throws -> [JSONValue] {
        var fields: [(String, JSONValue)] = [("type", "join"), ("id", "join"), ("room", .string(room))]
        if let device { fields.append(("device", .string(device))) }
        if let callType { fields.append(("callType", .string(callType))) }
        if let kind { fields.append(("as", .string(kind))) }
        if let resume { fields.append(("resume", .int(resume))) }
        let answer = self.request(id, .object(JSONObject(uniqueKeysWithValues: fields)))
        guard answer.first?["type"] == "ack" else { throw HarnessError.unexpected("join refused: \(answer)") }
        return answer
    }

    /// Messages the session received and were not drained yet, roster patches left out.
    func pending(_ id: SessionID) -> [JSONValue] {
        (self.transport.messages[id] ?? []).filter { $0["type"] != "patch" }
    }

    /// Takes the messages the session received so far, roster patches left out (the roster tests read them with
    /// `drainWithPatches`).
    func drain(_ id: SessionID) -> [JSONValue] {
        self.transport.drain(id).filter { $0["type"] != "patch" }
    }

    /// Takes every message the session received so far, roster patches included.
    func drainWithPatches(_ id: SessionID) -> [JSONValue] {
        self.transport.drain(id)
    }

    /// Ends a session: cleanly (a Close frame from the client) or not (the socket dropped).
    func close(_ id: SessionID, cleanly: Bool) {
        self.gateway.sessionClosed(id, cleanly: cleanly)
        try? self.store?.commit()
    }

    /// The close code the gateway asked for, if it closed the session.
    func closeCode(_ id: SessionID) -> UInt16? {
        self.transport.closes[id]?.code
    }

    // MARK: Rooms

    /// The room's last sequence number (0 for a room that does not exist).
    func sequence(_ room: String) -> Int64 {
        Int64(self.gateway.roomState(room)?.sequence ?? 0)
    }

    func participant(_ uid: String, in room: String) -> Participant? {
        self.gateway.roomState(room)?.participants[uid]
    }
}

enum HarnessError: Error {
    case unexpected(String)
}

// MARK: Reading messages

extension Array where Element == JSONValue {
    /// The events, in order.
    var events: [JSONValue] { self.filter { $0["type"] == "event" } }

    /// The names of the events, in order.
    var eventNames: [String] { self.events.compactMap { $0["event"]?.stringValue } }

    /// The events with the given name.
    func events(named name: String) -> [JSONValue] {
        self.events.filter { $0["event"]?.stringValue == name }
    }

    /// The first message of the given type.
    func first(type: String) -> JSONValue? {
        self.first { $0["type"]?.stringValue == type }
    }

    /// The error codes, in order.
    var errorCodes: [String] { self.filter { $0["type"] == "error" }.compactMap { $0["code"]?.stringValue } }
}

extension JSONValue {
    /// The participant entry with `uid` in a snapshot.
    func snapshotParticipant(_ uid: String) -> JSONValue? {
        self["participants"]?.arrayValue?.first { $0["uid"]?.stringValue == uid }
    }
}

/// Base64url without padding, for hand-crafted tokens.
enum Base64URLText {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value: UInt32 = 0
            for (offset, byte) in chunk.enumerated() { value |= UInt32(byte) << (16 - 8 * UInt32(offset)) }
            for position in 0...chunk.count {
                output.append(Self.alphabet[Int((value >> (18 - 6 * UInt32(position))) & 0x3F)])
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }
}

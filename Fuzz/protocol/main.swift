import JSONCoding
import Rooms
import RoomsTesting
import TokenAuth

/// Fuzzes the gateway's client protocol: messages from authenticated sessions, decoded by the internal
/// `ClientMessageDecoder` and applied to rooms, through the public `RoomsNode` with an in-memory transport.
///
/// Input: one client message per line (LF-separated, at most 32); a line starting with byte 0x01 comes from the
/// second session (a participant), any other from the first (an admin of room `r1`, a bot with every capability in
/// `b1`, a member of group `g1`). Both have joined `r1` before the input is read. Between messages the clock moves
/// by the line's length in seconds and the gateway ticks.
/// Invariants: the gateway never traps (the transport checks that everything it sends is valid JSON); a room's
/// sequence number never goes backwards while the room exists.

private let now: Int64 = 1_750_000_000
private let key = try! TokenKey(secret: "correct horse battery staple, rollcall test secret")
private let verifier = try! TokenVerifier(keys: [key])
private let signer = TokenSigner(key: key)

private func token(_ subject: String, rooms: [String: String], capabilities: [String] = []) -> String {
    try! signer.sign(
        TokenClaims(
            subject: subject, expiresAt: now + 3600, name: subject.uppercased(),
            rooms: rooms.mapValues { TokenRole(rawValue: $0)! }, groups: ["g1"], capabilities: capabilities
        ))
}

private let adminToken = token(
    "u1", rooms: ["r1": "admin", "b1": "bot", "r2": "viewer"],
    capabilities: ["mute", "remove", "ban", "promote", "pin", "end", "record"]
)
private let participantToken = token("u2", rooms: ["r1": "participant", "r2": "moderator"])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    let transport = InMemoryTransport()
    let clock = ManualClock(now: now * 1000)
    let gateway = RoomsNode(configuration: RoomsConfiguration(), verifier: verifier, transport: transport) {
        clock.now
    }
    let admin = SessionID(1)
    let participant = SessionID(2)
    gateway.sessionOpened(admin, token: adminToken)
    gateway.sessionOpened(participant, token: nil)
    send(gateway, participant, Array(#"{"type":"auth","id":1,"token":"\#(participantToken)"}"#.utf8))
    send(gateway, admin, Array(#"{"type":"join","id":2,"room":"r1","device":"d1","callType":"video"}"#.utf8))
    send(gateway, participant, Array(#"{"type":"join","id":3,"room":"r1"}"#.utf8))
    precondition(transport.closes.isEmpty, "the fixed sessions were refused")

    var sequences: [String: UInt64] = [:]
    checkSequences(gateway, &sequences)
    for line in input.split(separator: 0x0A, maxSplits: 31, omittingEmptySubsequences: false) {
        var bytes = Array(line)
        var session = admin
        if bytes.first == 0x01 {
            session = participant
            bytes.removeFirst()
        }
        // The transport hands the gateway validated UTF-8 text only.
        guard String(validating: bytes, as: UTF8.self) != nil else { continue }
        send(gateway, session, bytes)
        checkSequences(gateway, &sequences)
        clock.advance(milliseconds: Int64(line.count) * 1000)
        gateway.tick()
        checkSequences(gateway, &sequences)
    }
    gateway.sessionClosed(participant, cleanly: false)
    gateway.sessionClosed(admin, cleanly: true)
    checkSequences(gateway, &sequences)
    return 0
}

private func send(_ gateway: RoomsNode, _ session: SessionID, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { gateway.sessionReceived(session, text: $0) }
}

private func checkSequences(_ gateway: RoomsNode, _ sequences: inout [String: UInt64]) {
    var seen: [String: UInt64] = [:]
    for id in gateway.roomIDs {
        guard let state = gateway.roomState(id) else { continue }
        precondition(state.sequence >= sequences[id] ?? 0, "room \(id) sequence went backwards")
        seen[id] = state.sequence
    }
    // A room that was removed starts again from zero when it is created anew.
    sequences = seen
}

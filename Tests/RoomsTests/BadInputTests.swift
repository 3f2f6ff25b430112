import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

@Suite struct BadInputTests {
    static let long = String(repeating: "x", count: 129)
    static let longText = String(repeating: "y", count: 1025)

    /// Raw text, the error code it must get, and a word the error message must name.
    static let cases: [(text: String, code: String, names: String)] = [
        (#"{"type":"state","room":"r""#, "ERR_BAD_REQUEST", "JSON"),
        ("not json at all", "ERR_BAD_REQUEST", "JSON"),
        (#"[{"type":"ping"}]"#, "ERR_BAD_REQUEST", "object"),
        (#""ping""#, "ERR_BAD_REQUEST", "object"),
        (#"{"room":"r"}"#, "ERR_BAD_REQUEST", "type"),
        (#"{"type":7}"#, "ERR_BAD_REQUEST", "type"),
        (#"{"type":"dance","room":"r"}"#, "ERR_BAD_REQUEST", "dance"),
        (#"{"type":"join","room":5}"#, "ERR_BAD_REQUEST", "room"),
        (#"{"type":"state","room":"r","audioMuted":"yes"}"#, "ERR_BAD_REQUEST", "audioMuted"),
        (#"{"type":"state","room":"r","handRaised":1}"#, "ERR_BAD_REQUEST", "handRaised"),
        (#"{"type":"state","room":"r","cameraFacing":"sideways"}"#, "ERR_BAD_REQUEST", "cameraFacing"),
        (#"{"type":"state","room":"r"}"#, "ERR_BAD_REQUEST", "nothing"),
        (#"{"type":"state","room":"r","audioMuted":true,"colour":"red"}"#, "ERR_BAD_REQUEST", "colour"),
        (#"{"type":"join","room":"r","role":"moderator"}"#, "ERR_BAD_REQUEST", "role"),
        (#"{"type":"state","room":"r","handRaised":true,"role":"admin"}"#, "ERR_BAD_REQUEST", "role"),
        (#"{"type":"state","room":"r","pinned":true}"#, "ERR_FORBIDDEN", "pinned"),
        (#"{"type":"action","room":"r","action":"explode","target":"u-bob"}"#, "ERR_BAD_REQUEST", "explode"),
        (#"{"type":"action","room":"r","action":"mute"}"#, "ERR_BAD_REQUEST", "target"),
        (#"{"type":"query","query":"secrets"}"#, "ERR_BAD_REQUEST", "secrets"),
        (#"{"type":"query","query":"history","room":"r","limit":0}"#, "ERR_BAD_REQUEST", "limit"),
        (#"{"type":"join","room":"r","resume":-1}"#, "ERR_BAD_REQUEST", "resume"),
        (#"{"type":"ping","id":{"nested":true}}"#, "ERR_BAD_REQUEST", "id"),
        (#"{"type":"ping","id":"\#(long)"}"#, "ERR_BAD_REQUEST", "id"),
        (#"{"type":"state","room":"\#(long)","audioMuted":true}"#, "ERR_BAD_REQUEST", "room"),
        (#"{"type":"join","room":"r","device":"\#(long)"}"#, "ERR_BAD_REQUEST", "device"),
        (#"{"type":"state","room":"r","mid":"\#(long)"}"#, "ERR_BAD_REQUEST", "mid"),
        (#"{"type":"join","room":"has space"}"#, "ERR_BAD_REQUEST", "room"),
        (#"{"type":"action","room":"r","action":"mute_all","reason":"\#(longText)"}"#, "ERR_BAD_REQUEST", "reason"),
        (#"{"type":"meeting","group":"r","sessionId":"c","text":"\#(longText)"}"#, "ERR_BAD_REQUEST", "text"),
        (#"{"type":"state","room":"elsewhere","audioMuted":true}"#, "ERR_NOT_IN_ROOM", ""),
        (#"{"type":"leave","room":"elsewhere"}"#, "ERR_NOT_IN_ROOM", ""),
        (#"{"type":"speaker","room":"elsewhere","uid":null}"#, "ERR_NOT_IN_ROOM", ""),
        (#"{"type":"media","room":"elsewhere","audioMode":"speaker"}"#, "ERR_NOT_IN_ROOM", ""),
        (#"{"type":"action","room":"elsewhere","action":"mute_all"}"#, "ERR_NOT_IN_ROOM", ""),
    ]

    @Test(arguments: 0..<Self.cases.count)
    func badInputIsRefusedWithoutClosingOrChangingAnyRoom(_ index: Int) throws {
        let (text, code, names) = Self.cases[index]
        let room = try TwoInARoom()
        let harness = room.harness
        // The moderator sends, so a refusal is never a matter of rights; "elsewhere" is open to her but not joined.
        let sender = try harness.connect("u-mod", rooms: ["r": .moderator, "elsewhere": .moderator])
        try harness.join(sender, "r")
        let state = harness.gateway.roomState("r")
        let rooms = harness.gateway.roomIDs
        _ = harness.drain(room.alice)
        harness.sendText(sender, text)
        let answer = harness.drain(sender)
        #expect(answer.count == 1)
        #expect(answer.errorCodes == [code])
        if !names.isEmpty {
            #expect(answer.first?["message"]?.stringValue?.contains(names) == true)
        }
        #expect(harness.closeCode(sender) == nil)
        #expect(harness.gateway.roomState("r") == state)
        #expect(harness.gateway.roomIDs == rooms)
        #expect(harness.drain(room.alice).isEmpty)
        // The session still works.
        #expect(harness.request(sender, ["type": "ping", "id": 1]) == [["type": "pong", "id": 1]])
    }

    @Test func theErrorEchoesTheRequestID() throws {
        let room = try TwoInARoom()
        let answer = room.harness.request(room.bob, ["type": "state", "id": "req-9", "room": "r", "loud": true])
        #expect(answer.first?["id"] == "req-9")
        #expect(answer.first?["code"] == "ERR_BAD_REQUEST")
    }

    @Test func aForgedRoleIsRefusedAndTheRosterKeepsTheTokensRole() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", rooms: ["r": .moderator])
        try harness.join(alice, "r")
        let bob = try harness.connect("u-bob", rooms: ["r": .participant])
        let forged = harness.request(bob, ["type": "join", "room": "r", "role": "admin"])
        #expect(forged.errorCodes == ["ERR_BAD_REQUEST"])
        #expect(harness.participant("u-bob", in: "r") == nil)
        let answer = try harness.join(bob, "r")
        #expect(answer.last?.snapshotParticipant("u-bob")?["role"] == "participant")
        let state = harness.request(bob, ["type": "state", "room": "r", "audioMuted": true, "role": "moderator"])
        #expect(state.errorCodes == ["ERR_BAD_REQUEST"])
        #expect(harness.participant("u-bob", in: "r")?.role == .participant)
        #expect(harness.participant("u-bob", in: "r")?.audioMuted == false)
        #expect(
            harness.request(bob, ["type": "action", "room": "r", "action": "mute_all"]).errorCodes
                == ["ERR_FORBIDDEN"])
    }

    @Test func aBinaryMessageIsABadRequestAndChangesNothing() throws {
        let room = try TwoInARoom()
        let state = room.harness.gateway.roomState("r")
        room.harness.gateway.sessionReceivedBinary(room.bob)
        #expect(room.harness.drain(room.bob).errorCodes == ["ERR_BAD_REQUEST"])
        #expect(room.harness.closeCode(room.bob) == nil)
        #expect(room.harness.gateway.roomState("r") == state)
        #expect(room.harness.drain(room.alice).isEmpty)
    }
}

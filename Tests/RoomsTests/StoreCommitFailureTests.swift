import JSONCoding
import RoomsTesting
import Testing

@testable import Rooms

/// While the runner reports that the store cannot commit, the gateway changes nothing a request asks for: what it
/// would change could not be acknowledged, and what it would read may not be committed yet.
@Suite struct StoreCommitFailureTests {
    @Test func whileTheStoreCannotCommitEveryRequestAboutARoomIsRefusedAndNothingIsApplied() throws {
        let call = try StoreRestartTests.Call()
        let harness = call.harness
        let before = harness.sequence("r")
        harness.gateway.storeCannotCommit = true
        let carol = try harness.connect("u-carol", rooms: ["r": .participant], groups: ["r"])
        let requests: [(SessionID, JSONValue)] = [
            (call.alice, ["type": "state", "room": "r", "handRaised": true]),
            (call.alice, ["type": "meeting", "group": "r", "sessionId": "s", "callType": "audio", "text": "hi"]),
            (call.alice, ["type": "action", "room": "r", "action": "mute", "target": "u-bob"]),
            (call.bob, ["type": "leave", "room": "r"]),
            (carol, ["type": "join", "room": "r"]),
            (call.bob, ["type": "query", "query": "members", "room": "r"]),
        ]
        for (session, request) in requests {
            let answer = harness.request(session, request)
            #expect(answer.map { $0["code"] } == [.string("ERR_UNAVAILABLE")], "\(request)")
        }
        #expect(harness.request(call.bob, ["type": "ping"]).first?["type"] == "pong")
        #expect(harness.sequence("r") == before)
        #expect(harness.gateway.statistics.storeRefusals == requests.count)
        #expect(throws: GatewayError.storeCannotCommit) { try harness.gateway.refuseWhileTheStoreCannotCommit() }
        #expect(harness.gateway.statistics.storeRefusals == requests.count + 1)
        // A dropped connection is a fact, not a request: it is recorded (its output waits with the rest).
        harness.close(call.bob, cleanly: false)
        #expect(harness.sequence("r") == before + 1)

        harness.gateway.storeCannotCommit = false
        let answer = harness.request(call.alice, ["type": "state", "room": "r", "handRaised": true])
        #expect(answer.contains { $0["type"] == "ack" })
        #expect(harness.sequence("r") == before + 2)
        #expect(try harness.gateway.refuseWhileTheStoreCannotCommit() == ())
    }
}

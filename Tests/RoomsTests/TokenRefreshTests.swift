import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// A token refresh that changes the user's role in a room, or no longer names it: the roster, the queries and the
/// rights follow the new token.
@Suite struct TokenRefreshTests {
    func refresh(_ harness: RoomsNodeHarness, _ session: SessionID, rooms: [String: TokenRole]) throws -> [JSONValue] {
        let token = try harness.token("u-alice", rooms: rooms)
        return harness.request(session, ["type": "auth", "id": "refresh", "token": .string(token)])
    }

    @Test func aRefreshToALowerRoleShowsInTheRosterTheQueriesAndTheRights() throws {
        let harness = try RoomsNodeHarness { $0.patchWindowMilliseconds = 0 }
        let alice = try harness.connect("u-alice", rooms: ["r": .moderator])
        try harness.join(alice, "r")
        let bob = try harness.connect("u-bob", rooms: ["r": .participant])
        try harness.join(bob, "r")
        let mirror = try RosterMirror(harness)
        #expect(mirror.participants["u-alice"]?["operator"] == true)

        let answer = try self.refresh(harness, alice, rooms: ["r": .participant])
        #expect(answer.first?["type"] == "welcome")
        try mirror.sync()
        #expect(mirror.participants["u-alice"]?["role"] == "participant")
        #expect(mirror.participants["u-alice"]?["operator"] == false)
        #expect(mirror.received.events(named: "participant.role_changed").first?["data"]?["role"] == "participant")
        #expect(mirror.matchesServer())
        let operators = harness.request(bob, ["type": "query", "query": "operators", "room": "r"])
        #expect(operators.first?["uids"] == [])
        let denied = harness.request(alice, ["type": "action", "room": "r", "action": "mute", "target": "u-bob"])
        #expect(denied.errorCodes == ["ERR_FORBIDDEN"])
        // A later join's rights say so too.
        let again = try harness.connect("u-alice", rooms: ["r": .participant])
        let ack = try #require(try harness.join(again, "r", device: "phone").first(type: "ack"))
        #expect(ack["rights"]?["operator"] == false)
    }

    @Test func aRefreshThatNoLongerNamesTheRoomTakesTheConnectionOutOfIt() throws {
        let harness = try RoomsNodeHarness { $0.patchWindowMilliseconds = 0 }
        let alice = try harness.connect("u-alice", rooms: ["r": .participant, "kept": .participant])
        try harness.join(alice, "r", device: "web")
        try harness.join(alice, "kept", device: "web")
        let watcher = try harness.connect("u-watch", rooms: ["r": .viewer])
        try harness.join(watcher, "r", as: "observer")
        _ = harness.drain(watcher)

        let answer = try self.refresh(harness, alice, rooms: ["kept": .participant])
        #expect(answer.first(type: "welcome") != nil)
        #expect(
            answer.first(type: "unsubscribed") == ["type": "unsubscribed", "room": "r", "reason": "access_revoked"])
        #expect(harness.closeCode(alice) == nil)
        let left = harness.drain(watcher).events(named: "participant.left")
        #expect(left.first?["data"]?["uid"] == "u-alice")
        #expect(left.first?["data"]?["reason"] == "access_revoked")
        #expect(harness.participant("u-alice", in: "r")?.isJoined == false)
        let refused = harness.request(alice, ["type": "state", "id": 1, "room": "r", "audioMuted": true])
        #expect(refused.errorCodes == ["ERR_NOT_IN_ROOM"])
        #expect(harness.participant("u-alice", in: "r")?.audioMuted == false)
        // The room the new token still names is untouched.
        #expect(
            harness.request(alice, ["type": "state", "room": "kept", "audioMuted": true]).first(type: "ack") != nil)
    }

    @Test func aRefreshThatDropsAWatchedRoomEndsTheWatch() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", rooms: ["r": .moderator, "kept": .participant])
        try harness.join(alice, "r", as: "observer")
        let answer = try self.refresh(harness, alice, rooms: ["kept": .participant])
        #expect(
            answer.first(type: "unsubscribed") == ["type": "unsubscribed", "room": "r", "reason": "access_revoked"])
        let bob = try harness.connect("u-bob", rooms: ["r": .participant])
        try harness.join(bob, "r")
        #expect(harness.drain(alice).isEmpty)
    }
}

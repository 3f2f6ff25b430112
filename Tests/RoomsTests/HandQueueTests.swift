import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// The hand queue: when each hand went up, the `raised_hands` view in that order, and `lower_all_hands`.
@Suite struct HandQueueTests {
    @Test func aRaisedHandCarriesWhenItWentUpUntilItIsLowered() throws {
        let harness = try RoomsNodeHarness { $0.patchWindowMilliseconds = 0 }
        let ann = try harness.joinQuietly("u-ann")
        let mirror = try RosterMirror(harness)
        let raisedAt = harness.clock.now
        harness.send(ann, ["type": "state", "room": "r", "handRaised": true])
        try mirror.sync()
        #expect(mirror.participants["u-ann"]?["raisedAt"] == .int(raisedAt))
        // Raising it again does not move it back in the queue.
        harness.advance(milliseconds: 5_000)
        harness.send(ann, ["type": "state", "room": "r", "handRaised": true, "audioMuted": true])
        try mirror.sync()
        #expect(mirror.participants["u-ann"]?["raisedAt"] == .int(raisedAt))
        harness.send(ann, ["type": "state", "room": "r", "handRaised": false])
        try mirror.sync()
        #expect(mirror.participants["u-ann"]?["raisedAt"] == nil)
        #expect(harness.participant("u-ann", in: "r")?.raisedAt == nil)
        #expect(mirror.matchesServer())
    }

    @Test func theRaisedHandsViewIsTheQueueAndItsWindowIsTheQueuesHead() throws {
        let harness = try RoomsNodeHarness { $0.patchWindowMilliseconds = 0 }
        var sessions: [String: SessionID] = [:]
        for uid in ["u-a", "u-b", "u-c", "u-d"] { sessions[uid] = try harness.joinQuietly(uid) }
        // Hands go up in the order d, b, c (a never raises it).
        for uid in ["u-d", "u-b", "u-c"] {
            harness.send(sessions[uid]!, ["type": "state", "room": "r", "handRaised": true])
            harness.advance(milliseconds: 1_000)
        }
        let queue = RosterView.members(
            harness.gateway.roomState("r")!, spec: RosterViewSpec(filter: .raisedHands), speaker: nil)
        #expect(queue == ["u-d", "u-b", "u-c"])
        let head = try RosterMirror(harness, uid: "o-head", view: ["filter": "raised_hands", "limit": 2])
        #expect(Set(head.participants.keys) == ["u-d", "u-b"])
        // The first in the queue lowers their hand: the third moves into the window.
        harness.send(sessions["u-d"]!, ["type": "state", "room": "r", "handRaised": false])
        try head.sync()
        #expect(Set(head.participants.keys) == ["u-b", "u-c"])
        #expect(head.matchesServer(RosterViewSpec(filter: .raisedHands, limit: 2)))
    }

    @Test func lowerAllHandsLowersEveryRaisedHandForModeratorsAndMuteBotsOnly() throws {
        let harness = try RoomsNodeHarness { $0.patchWindowMilliseconds = 0 }
        let host = try harness.joinQuietly("u-host", role: .moderator)
        let ann = try harness.joinQuietly("u-ann")
        let bob = try harness.joinQuietly("u-bob")
        for session in [host, ann, bob] { harness.send(session, ["type": "state", "room": "r", "handRaised": true]) }
        let refused = harness.request(ann, ["type": "action", "id": 1, "room": "r", "action": "lower_all_hands"])
        #expect(refused.first?["code"] == "ERR_FORBIDDEN")
        #expect(harness.participant("u-bob", in: "r")?.handRaised == true)
        let done = harness.request(host, ["type": "action", "id": 2, "room": "r", "action": "lower_all_hands"])
        #expect(done.first(type: "ack")?["changed"] == true)
        for uid in ["u-host", "u-ann", "u-bob"] { #expect(harness.participant(uid, in: "r")?.handRaised == false) }
        let again = harness.request(host, ["type": "action", "id": 3, "room": "r", "action": "lower_all_hands"])
        #expect(again.first(type: "ack")?["changed"] == false)
        let bot = try harness.connect("b-mod", rooms: ["r": .bot], caps: ["mute"])
        try harness.join(bot, "r", as: "observer")
        harness.send(bob, ["type": "state", "room": "r", "handRaised": true])
        let byBot = harness.request(bot, ["type": "action", "id": 4, "room": "r", "action": "lower_all_hands"])
        #expect(byBot.first(type: "ack")?["changed"] == true)
    }
}

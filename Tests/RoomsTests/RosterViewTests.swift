import JSONCoding
import RollcallClient
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// A room whose participants fall into different views: Ann muted with her hand up and speaking, Joanna
/// presenting, Bob promoted, Bonnie banned.
struct ViewsRoom {
    let harness: RoomsNodeHarness
    var sessions: [String: SessionID] = [:]

    init(window: Int64 = 0) throws {
        let harness = try RoomsNodeHarness { $0.patchWindowMilliseconds = window }
        self.harness = harness
        for (uid, name, role) in [
            ("u-host", "Host", TokenRole.moderator), ("u-ann", "Ann Lee", .participant),
            ("u-jo", "Joanna", .participant), ("u-bob", "Bob", .participant),
            ("u-bon", "Bonnie Boyd", .participant),
        ] {
            self.sessions[uid] = try harness.joinQuietly(uid, name: name, role: role)
        }
        let host = self.sessions["u-host"]!
        harness.send(self.sessions["u-ann"]!, ["type": "state", "room": "r", "audioMuted": true, "handRaised": true])
        harness.send(self.sessions["u-jo"]!, ["type": "state", "room": "r", "presenting": true])
        harness.send(self.sessions["u-ann"]!, ["type": "speaker", "room": "r", "uid": "u-ann"])
        harness.send(host, ["type": "action", "room": "r", "action": "promote", "target": "u-bob"])
        harness.send(host, ["type": "action", "room": "r", "action": "ban", "target": "u-bon"])
        harness.advance(milliseconds: 600)
    }

    func send(_ uid: String, _ message: JSONValue) {
        self.harness.send(self.sessions[uid]!, message)
    }
}

@Suite struct RosterViewTests {
    static let cases: [(view: JSONValue, uids: Set<String>)] = [
        (["filter": "all"], ["u-host", "u-ann", "u-jo", "u-bob"]),
        (["filter": "operators"], ["u-host", "u-bob"]),
        (["filter": "muted"], ["u-ann"]),
        (["filter": "banned"], ["u-bon"]),
        (["filter": "raised_hands"], ["u-ann"]),
        (["filter": "presenters"], ["u-jo"]),
        (["filter": "speakers"], ["u-ann"]),
        (["filter": "search", "query": "AN"], ["u-ann"]),
        (["filter": "search", "query": "an", "match": "substring"], ["u-ann", "u-jo"]),
        (["filter": "all", "limit": 2], ["u-host", "u-ann"]),
    ]

    @Test(arguments: 0..<Self.cases.count)
    func eachViewsSnapshotListsExactlyTheRightParticipants(index: Int) throws {
        let room = try ViewsRoom()
        let mirror = try RosterMirror(room.harness, view: Self.cases[index].view)
        #expect(Set(mirror.participants.keys) == Self.cases[index].uids, "\(Self.cases[index].view)")
        if Self.cases[index].view["filter"] == "banned" {
            #expect(mirror.participants["u-bon"] == ["uid": "u-bon", "banned": true, "name": "Bonnie Boyd"])
        }
    }

    @Test func participantsEnteringAndLeavingAViewAreAddsAndNulls() throws {
        let room = try ViewsRoom()
        let mirror = try RosterMirror(room.harness, view: ["filter": "muted"])
        room.send("u-jo", ["type": "state", "room": "r", "audioMuted": true])
        let added = RosterMirror.patches(try mirror.sync())
        #expect(added.count == 1)
        #expect(added.first?["patch"]?["participants"]?["u-jo"]?["uid"] == "u-jo", "the whole entry")
        #expect(added.first?["patch"]?["participants"]?["u-jo"]?["name"] == "Joanna")
        room.send("u-ann", ["type": "state", "room": "r", "audioMuted": false])
        let removed = RosterMirror.patches(try mirror.sync())
        #expect(removed.first?["patch"]?["participants"] == ["u-ann": nil])
        #expect(Set(mirror.participants.keys) == ["u-jo"])
        // A change outside the view sends that view only the room's counts (three of four on video now).
        room.send("u-bob", ["type": "state", "room": "r", "videoPaused": true])
        #expect(RosterMirror.patches(try mirror.sync()).map { $0["patch"] } == [["room": ["counts": ["video": 3]]]])
        #expect(mirror.matchesServer(RosterViewSpec(filter: .muted)))
    }

    @Test func aViewMessageSwitchesViewsWithoutResubscribing() throws {
        let room = try ViewsRoom()
        let mirror = try RosterMirror(room.harness, events: "none")
        let sequence = room.harness.sequence("r")
        room.harness.send(mirror.session, ["type": "view", "id": 7, "room": "r", "view": ["filter": "raised_hands"]])
        let answer = try mirror.sync()
        #expect(answer.map { $0["type"] } == ["ack", "snapshot"])
        #expect(answer.first?["id"] == 7)
        #expect(answer.last?["view"]?["filter"] == "raised_hands")
        #expect(Set(mirror.participants.keys) == ["u-ann"])
        // No leave and no join: the room's log did not move.
        #expect(room.harness.sequence("r") == sequence)
        // Patches of the new view only: a mute is outside it (only the room's counts change), a raised hand
        // inside (the entry, the counts and the view's total).
        room.send("u-jo", ["type": "state", "room": "r", "audioMuted": true])
        #expect(RosterMirror.patches(try mirror.sync()).map { $0["patch"] } == [["room": ["counts": ["muted": 2]]]])
        room.send("u-jo", ["type": "state", "room": "r", "handRaised": true])
        let raised = RosterMirror.patches(try mirror.sync())
        #expect(raised.count == 1)
        #expect(raised.first?["patch"]?["room"] == ["total": 2, "counts": ["handsRaised": 2]])
        #expect(Set(mirror.participants.keys) == ["u-ann", "u-jo"])
        #expect(mirror.matchesServer(RosterViewSpec(filter: .raisedHands)))
    }

    @Test func subscribersOfOneViewShareOneEncodedPatch() throws {
        let room = try ViewsRoom(window: 50)
        let muted = try (0..<3).map {
            try RosterMirror(
                room.harness, uid: "o-\($0)", view: ["filter": "muted"],
                events: "none")
        }
        let whole = try RosterMirror(room.harness, uid: "o-all", events: "none")
        room.send("u-jo", ["type": "state", "room": "r", "audioMuted": true])
        let transport = room.harness.transport
        let (calls, deliveries, statistics) = (
            transport.sendCalls, transport.deliveries, room.harness.gateway.statistics
        )
        room.harness.advance(milliseconds: 50)
        // One send per view: the muted view's patch to its three subscribers, the whole roster's to one, and the
        // room's counts to the participants' own view (`speakers`, the four in the call).
        #expect(transport.sendCalls - calls == 3)
        #expect(transport.deliveries - deliveries == 8)
        #expect(room.harness.gateway.statistics.patches - statistics.patches == 3)
        #expect(room.harness.gateway.statistics.patchDeliveries - statistics.patchDeliveries == 8)
        for mirror in muted {
            #expect(RosterMirror.patches(try mirror.sync()).count == 1)
            #expect(mirror.store.roster == muted[0].store.roster)
        }
        #expect(RosterMirror.patches(try whole.sync()).count == 1)
        #expect(Set(muted[0].participants.keys) == ["u-ann", "u-jo"])
    }

    @Test func aLimitKeepsTheFirstInJoinOrderAndALeaveLetsTheNextIn() throws {
        let harness = try RoomsNodeHarness { $0.patchWindowMilliseconds = 0 }
        var sessions: [SessionID] = []
        for uid in ["u-a", "u-b", "u-c", "u-d"] { sessions.append(try harness.joinQuietly(uid)) }
        let mirror = try RosterMirror(harness, view: ["filter": "all", "limit": 2])
        #expect(Set(mirror.participants.keys) == ["u-a", "u-b"])
        harness.send(sessions[0], ["type": "leave", "room": "r"])
        let patches = RosterMirror.patches(try mirror.sync())
        #expect(patches.count == 1)
        #expect(patches.first?["patch"]?["participants"]?["u-a"] == .null)
        #expect(patches.first?["patch"]?["participants"]?["u-c"]?["uid"] == "u-c")
        #expect(Set(mirror.participants.keys) == ["u-b", "u-c"])
        // A join at the end of the order stays outside the window.
        try harness.joinQuietly("u-e")
        #expect(RosterMirror.patches(try mirror.sync()).allSatisfy { $0["patch"]?["participants"] == nil })
        #expect(Set(mirror.participants.keys) == ["u-b", "u-c"])
        #expect(mirror.matchesServer(RosterViewSpec(limit: 2)))
    }
}

@Suite struct RosterBannedViewTests {
    @Test func theBannedViewStaysTheServersViewWhenANewCallStarts() throws {
        let harness = try RoomsNodeHarness { $0.patchWindowMilliseconds = 0 }
        let host = try harness.joinQuietly("u-host", name: "Host", role: .moderator)
        try harness.joinQuietly("u-bob", name: "Bob")
        harness.send(host, ["type": "action", "room": "r", "action": "ban", "target": "u-bob"])
        let mirror = try RosterMirror(harness, view: ["filter": "banned"])
        harness.send(host, ["type": "leave", "room": "r"])
        try harness.joinQuietly("u-host", name: "Host", role: .moderator, device: "phone")
        try mirror.sync()
        #expect(Set(mirror.participants.keys) == ["u-bob"])
        #expect(mirror.matchesServer(RosterViewSpec(filter: .banned)))
    }
}

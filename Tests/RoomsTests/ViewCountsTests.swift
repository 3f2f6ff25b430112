import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// The counts and the total in every view's room entry: in the snapshot, moving with the same patches as the
/// participants' entries, by role, and each view's own total before its offset and limit.
@Suite struct ViewCountsTests {
    /// A room with a host (moderator), Ann (muted, hand up), Jo (presenting), Bob (camera off), Cy (a viewer) and
    /// Bonnie (banned), every change sent at once.
    struct Room {
        let harness: RoomsNodeHarness
        var sessions: [String: SessionID] = [:]

        init() throws {
            self.harness = try RoomsNodeHarness { $0.patchWindowMilliseconds = 0 }
            for (uid, name, role) in [
                ("u-host", "Host", TokenRole.moderator), ("u-ann", "Ann", .participant), ("u-jo", "Jo", .participant),
                ("u-bob", "Bob", .participant), ("u-cy", "Cy", .viewer), ("u-bon", "Bonnie", .participant),
            ] {
                self.sessions[uid] = try self.harness.joinQuietly(uid, name: name, role: role)
            }
            self.send("u-ann", ["type": "state", "room": "r", "audioMuted": true, "handRaised": true])
            self.send("u-jo", ["type": "state", "room": "r", "presenting": true])
            self.send("u-bob", ["type": "state", "room": "r", "videoPaused": true])
            self.send("u-host", ["type": "action", "room": "r", "action": "ban", "target": "u-bon"])
        }

        func send(_ uid: String, _ message: JSONValue) {
            self.harness.send(self.sessions[uid]!, message)
        }
    }

    @Test("a snapshot's room entry carries the counts of everyone in the call and the view's total")
    func aSnapshotCarriesTheCountsAndTheTotal() throws {
        let room = try Room()
        let mirror = try RosterMirror(room.harness, events: "none")
        let entry = mirror.store.roster["room"]
        // The observer watching is not in the call, so in no count; the banned user left it.
        #expect(
            entry?["counts"] == [
                "inCall": 5, "muted": 1, "video": 4, "presenting": 1, "handsRaised": 1,
                "roles": ["moderator": 1, "participant": 3, "viewer": 1],
            ])
        #expect(entry?["total"] == 5)
        #expect(entry?["participantCount"] == 5)
        #expect(mirror.matchesServer())
    }

    @Test("a mute changes the room's counts.muted in the same patch as the participant's entry")
    func aMuteMovesTheCountInTheSamePatch() throws {
        let room = try Room()
        let mirror = try RosterMirror(room.harness, events: "none")
        room.send("u-jo", ["type": "state", "room": "r", "audioMuted": true])
        let patches = RosterMirror.patches(try mirror.sync())
        #expect(patches.count == 1)
        #expect(
            patches.first?["patch"] == [
                "room": ["counts": ["muted": 2]], "participants": ["u-jo": ["audioMuted": true]],
            ])
        // A count that drops to zero leaves the entry: a null in the patch.
        room.send("u-ann", ["type": "state", "room": "r", "handRaised": false])
        #expect(RosterMirror.patches(try mirror.sync()).first?["patch"]?["room"] == ["counts": ["handsRaised": nil]])
        #expect(mirror.store.roster["room"]?["counts"]?["handsRaised"] == nil)
        #expect(mirror.matchesServer())
    }

    @Test("a page's total counts every entry of its view before the offset and the limit")
    func aPageKnowsItsTotal() throws {
        let room = try Room()
        let spec = RosterViewSpec(sort: .name, offset: 2, limit: 2)
        let page = try RosterMirror(room.harness, view: ["filter": "all", "sort": "name", "offset": 2, "limit": 2])
        // Ann, Bob | Cy, Host | Jo: the second of three pages of two.
        #expect(Set(page.participants.keys) == ["u-cy", "u-host"])
        #expect(page.store.roster["room"]?["total"] == 5)
        room.send("u-bob", ["type": "leave", "room": "r"])
        let patches = RosterMirror.patches(try page.sync())
        #expect(patches.first?["patch"]?["room"]?["total"] == 4)
        #expect(Set(page.participants.keys) == ["u-host", "u-jo"])
        #expect(page.matchesServer(spec))
    }

    @Test("the banned view's total is the number of banned users the lists show")
    func theBannedViewsTotalIsTheBannedUsers() throws {
        let room = try Room()
        let spec = RosterViewSpec(filter: .banned)
        let banned = try RosterMirror(room.harness, view: ["filter": "banned"])
        #expect(banned.store.roster["room"]?["total"] == 1)
        room.send("u-host", ["type": "action", "room": "r", "action": "ban", "target": "u-jo"])
        try banned.sync()
        #expect(banned.store.roster["room"]?["total"] == 2)
        #expect(banned.store.roster["room"]?["counts"]?["inCall"] == 4)
        #expect(banned.matchesServer(spec))
    }

    @Test("a raised_hands view's total is every raised hand, however few its limit keeps")
    func theRaisedHandsViewsTotalIsEveryRaisedHand() throws {
        let room = try Room()
        let spec = RosterViewSpec(filter: .raisedHands, limit: 1)
        let queue = try RosterMirror(room.harness, view: ["filter": "raised_hands", "limit": 1])
        room.send("u-jo", ["type": "state", "room": "r", "handRaised": true])
        room.send("u-bob", ["type": "state", "room": "r", "handRaised": true])
        try queue.sync()
        #expect(Set(queue.participants.keys) == ["u-ann"])
        #expect(queue.store.roster["room"]?["total"] == 3)
        #expect(queue.store.roster["room"]?["counts"]?["handsRaised"] == 3)
        room.send("u-host", ["type": "action", "room": "r", "action": "lower_hand", "target": "u-ann"])
        try queue.sync()
        #expect(Set(queue.participants.keys) == ["u-jo"])
        #expect(queue.store.roster["room"]?["total"] == 2)
        #expect(queue.matchesServer(spec))
    }

    @Test("a role's count appears with its first participant in the call and goes, as a null, with its last")
    func roleCountsAppearAndDisappear() throws {
        let room = try Room()
        let mirror = try RosterMirror(room.harness, events: "none")
        let bot = try room.harness.joinQuietly("u-bot", name: "Notes", role: .bot)
        var patches = RosterMirror.patches(try mirror.sync())
        #expect(patches.last?["patch"]?["room"]?["counts"]?["roles"] == ["bot": 1])
        room.send("u-cy", ["type": "leave", "room": "r"])
        patches = RosterMirror.patches(try mirror.sync())
        #expect(patches.last?["patch"]?["room"]?["counts"]?["roles"] == ["viewer": nil])
        room.harness.send(bot, ["type": "leave", "room": "r"])
        try mirror.sync()
        #expect(mirror.store.roster["room"]?["counts"]?["roles"] == ["moderator": 1, "participant": 3])
        #expect(mirror.matchesServer())
    }

    @Test("an empty room's counts are an empty object, and the first join fills them")
    func anEmptyRoomsCountsAreEmpty() throws {
        let harness = try RoomsNodeHarness { $0.patchWindowMilliseconds = 0 }
        let mirror = try RosterMirror(harness, events: "none")
        #expect(mirror.store.roster["room"]?["counts"] == [:])
        #expect(mirror.store.roster["room"]?["total"] == 0)
        try harness.joinQuietly("u-ann", name: "Ann")
        try mirror.sync()
        #expect(
            mirror.store.roster["room"]?["counts"] == ["inCall": 1, "video": 1, "roles": ["participant": 1]])
        #expect(mirror.matchesServer())
    }

    @Test("a replica read back from its checkpoint gives the same counts and room entry")
    func aCheckpointGivesTheSameCounts() throws {
        let room = try Room()
        let state = try #require(room.harness.gateway.roomState("r"))
        let read = try RoomReplica(checkpoint: RoomReplica(state: state).checkpoint)
        #expect(read.state.viewCounts == state.viewCounts)
        #expect(read.state.viewCounts.inCall == 5)
        let spec = RosterViewSpec(filter: .raisedHands)
        #expect(
            RosterView.render(read.state, spec: spec, speaker: nil, capacity: 100)
                == RosterView.render(state, spec: spec, speaker: nil, capacity: 100))
    }

    @Test("two cluster nodes give the same counts and totals, and a mute through one moves them on the other")
    func twoClusterNodesAgreeOnTheCounts() throws {
        let cluster = try ClusterHarness()
        let host = try cluster.a.connect("u-host", rooms: ["r": .moderator])
        try cluster.a.join(host, "r")
        let ann = try cluster.b.connect("u-ann", rooms: ["r": .participant])
        try cluster.b.join(ann, "r")
        let watchA = try cluster.a.connect("o-a", rooms: ["r": .viewer])
        let watchB = try cluster.b.connect("o-b", rooms: ["r": .viewer])
        _ = cluster.b.request(ann, ["type": "state", "room": "r", "audioMuted": true, "handRaised": true])
        cluster.advance(milliseconds: 1_000)
        // A page of one raised hand: its total is every raised hand.
        let join: JSONValue = [
            "type": "join", "id": "w", "room": "r", "as": "observer", "view": ["filter": "raised_hands", "limit": 1],
            "events": "none",
        ]
        let roomA = try #require(cluster.a.request(watchA, join).first(type: "snapshot")?["roster"]?["room"])
        let roomB = try #require(cluster.b.request(watchB, join).first(type: "snapshot")?["roster"]?["room"])
        #expect(roomA["counts"] == roomB["counts"])
        #expect(roomA["counts"]?["muted"] == 1)
        #expect(roomA["counts"]?["handsRaised"] == 1)
        #expect(roomA["counts"]?["inCall"] == 2)
        #expect(roomA["total"] == 1)
        #expect(roomB["total"] == 1)
        #expect(cluster.a.state("r")?.viewCounts == cluster.b.state("r")?.viewCounts)
    }

    @Test("the counts are those of the participants' flags, by the flags' own definitions")
    func theCountsFollowTheFlagDefinitions() {
        var state = RoomState(id: "r")
        for (index, bits) in [0b0_0001, 0b0_0011, 0b0_0100, 0b0_1000, 0b1_0000, 0b0_0000].enumerated() {
            var participant = Participant(
                uid: "p\(index)", name: "P\(index)", avatar: nil, role: index == 0 ? .moderator : .participant,
                joinedAt: 0, order: index)
            participant.devices = [ParticipantDevice(deviceID: "d", joinedAt: 0)]
            for flag in ParticipantFlag.ordered { participant.flags[flag] = bits & Int(flag.bit) != 0 }
            state.participants[participant.uid] = participant
            state.joinOrder.append(participant.uid)
        }
        let counts = state.viewCounts
        #expect(counts.inCall == 6)
        #expect(counts.count(.audioMuted) == 2)
        #expect(counts.count(.videoPaused) == 5, "video counts the cameras that are on")
        #expect(counts.count(.presenting) == 1)
        #expect(counts.count(.handRaised) == 1)
        #expect(counts.count(.pinned) == 0, "pinned is not counted")
        #expect(counts.count(.moderator) == 1)
        #expect(counts.count(.participant) == 5)
        // A hidden participant is in no list, so in no count.
        state.participants["p0"]?.permissions.hidden = true
        #expect(state.viewCounts.inCall == 5)
        #expect(state.viewCounts.count(.moderator) == 0)
        #expect(state.viewCounts.object["roles"] == ["participant": 5])
    }
}

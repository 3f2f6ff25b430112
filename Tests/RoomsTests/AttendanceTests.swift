import JSONCoding
import RoomsTesting
import TestSupport
import Testing

@testable import Rooms

/// Attendance (`{"type":"query","query":"attendance"}`): who attended the call and for how long, computed from the
/// room's log alone, read by moderators and bots with `attendance` only.
@Suite struct AttendanceTests {
    @Test func moderatorsAndBotsWithTheCapabilityReadTheAttendanceAndNobodyElseDoes() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", rooms: ["r": .moderator])
        let bob = try harness.connect("u-bob", rooms: ["r": .participant])
        let counter = try harness.connect("u-counter", rooms: ["r": .bot], caps: ["attendance"])
        let muter = try harness.connect("u-muter", rooms: ["r": .bot], caps: ["mute"])
        let aliceAnswer = try harness.join(alice, "r")
        let bobAnswer = try harness.join(bob, "r")
        #expect(aliceAnswer.first?["rights"]?["attendance"] == true)
        #expect(bobAnswer.first?["rights"]?["attendance"] == false)
        harness.advance(milliseconds: 60_000)
        let query: JSONValue = ["type": "query", "id": 1, "query": "attendance", "room": "r"]

        let read = harness.request(alice, query)
        #expect(read.first?["type"] == "result")
        #expect(read.first?["participants"]?.arrayValue?.compactMap { $0["uid"]?.stringValue } == ["u-alice", "u-bob"])
        #expect(read.first?["participants"]?[1]?["inCallMs"] == 60_000)
        #expect(harness.request(counter, query).first?["type"] == "result")
        for forbidden in [bob, muter] {
            let before = harness.sequence("r")
            let refused = harness.request(forbidden, query)
            #expect(refused.first?["code"] == "ERR_FORBIDDEN")
            #expect(refused.first?["participants"] == nil)
            #expect(harness.sequence("r") == before)
        }
    }

    @Test func theAttendanceComesInPagesInJoinOrder() throws {
        let harness = try RoomsNodeHarness()
        let alice = try harness.connect("u-alice", rooms: ["r": .moderator])
        try harness.join(alice, "r")
        for index in 0..<5 {
            try harness.join(try harness.connect("u-\(index)", rooms: ["r": .participant]), "r")
        }
        var uids: [String] = []
        var after: JSONValue = .null
        var pages = 0
        repeat {
            var query: [(String, JSONValue)] = [
                ("type", "query"), ("query", "attendance"), ("room", "r"), ("limit", 2),
            ]
            if after != .null { query.append(("after", after)) }
            let page = try #require(harness.request(alice, .object(JSONObject(query))).first)
            uids += page["participants"]?.arrayValue?.compactMap { $0["uid"]?.stringValue } ?? []
            after = page["next"] ?? .null
            pages += 1
        } while after != .null && pages < 10
        #expect(pages == 3)
        #expect(uids == ["u-alice", "u-0", "u-1", "u-2", "u-3", "u-4"])
    }

    @Test func theLastLeaveOfACallCarriesTheAttendanceReportForWebhooksAndNoEarlierLeaveDoes() throws {
        let store = InMemoryRoomStore()
        let harness = try RoomsNodeHarness(store: store)
        let alice = try harness.connect("u-alice", rooms: ["r": .moderator])
        let bob = try harness.connect("u-bob", rooms: ["r": .participant])
        try harness.join(alice, "r")
        try harness.join(bob, "r")
        harness.advance(milliseconds: 60_000)
        harness.send(bob, ["type": "leave", "room": "r"])
        harness.advance(milliseconds: 30_000)
        harness.send(alice, ["type": "leave", "room": "r"])

        let leaves = store.committedEntries(of: "r").filter { $0.eventName == "participant.left" }
        #expect(leaves.count == 2)
        #expect(leaves.first?.webhookMessage == nil)
        let report = try JSONParser.parse(try #require(leaves.last?.webhookMessage))
        #expect(report["attendance"]?.arrayValue?.compactMap { $0["uid"]?.stringValue } == ["u-alice", "u-bob"])
        #expect(report["attendance"]?.arrayValue?.compactMap { $0["inCallMs"]?.intValue } == [90_000, 60_000])
        #expect(try JSONParser.parse(try #require(leaves.last?.message))["attendance"] == nil)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func aSeededCallWithReconnectsSpeakerSwitchesAndARestartMatchesAModelOfItsEvents(_ seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let store = InMemoryRoomStore()
        let clock = ManualClock()
        var harness = try RoomsNodeHarness(clock: clock, store: store)
        let uids = ["u-alice", "u-bob", "u-carol", "u-dave"]
        var sessions: [String: SessionID] = [:]
        func connect(_ uid: String) throws -> SessionID {
            try harness.connect(uid, rooms: ["r": uid == "u-alice" ? .moderator : .participant])
        }
        // Alice stays in the call throughout, so the call never ends and starts again.
        sessions["u-alice"] = try connect("u-alice")
        try harness.join(sessions["u-alice"]!, "r", device: "laptop")
        for step in 0..<160 {
            if step == 80 {
                // The process ends mid-call; everyone comes back to a new one on the same store.
                store.crash()
                harness = try RoomsNodeHarness(clock: clock, store: store)
                for uid in sessions.keys.sorted() {
                    let session = try connect(uid)
                    sessions[uid] = session
                    try harness.join(session, "r", device: "laptop")
                }
            }
            let uid = uids[Int(random.next() % UInt64(uids.count))]
            let flag = ["audioMuted", "videoPaused", "presenting", "handRaised"][Int(random.next() % 4)]
            switch (sessions[uid], random.next() % 7) {
            case (nil, _):
                let session = try connect(uid)
                sessions[uid] = session
                try harness.join(session, "r", device: "laptop")
            case (let session?, 0) where uid != "u-alice":
                harness.send(session, ["type": "leave", "room": "r"])
                harness.close(session, cleanly: true)
                sessions[uid] = nil
            case (let session?, 1):
                // The connection drops; the device comes back within the grace period.
                harness.close(session, cleanly: false)
                harness.advance(milliseconds: Int64(random.next() % 3_000))
                let again = try connect(uid)
                sessions[uid] = again
                try harness.join(again, "r", device: "laptop")
            case (let session?, 2), (let session?, 3):
                harness.send(
                    session, ["type": "speaker", "room": "r", "uid": random.next() % 4 == 0 ? .null : .string(uid)])
            case (let session?, _):
                harness.send(
                    session,
                    .object(JSONObject([("type", "state"), ("room", "r"), (flag, .bool(random.next() % 2 == 0))])))
            }
            harness.advance(milliseconds: Int64(200 + random.next() % 4_000))
        }
        var model = AttendanceModel()
        for stored in store.committedEntries(of: "r") { model.play(stored.entry) }
        model.account(until: clock.now)

        let moderator = try #require(sessions["u-alice"])
        let answer = try #require(
            harness.request(moderator, ["type": "query", "query": "attendance", "room": "r", "limit": 1000]).first)
        try Self.expect(try #require(answer["participants"]?.arrayValue), toMatch: model)
        #expect(model.people.values.contains { $0.speaking > 0 })
        #expect(model.people.values.contains { $0.handsRaised > 1 })

        // The session ends: the webhooks' `session.ended` carries the report, the subscribers' does not.
        harness.send(moderator, ["type": "action", "id": 9, "room": "r", "action": "end_session"])
        let ended = try #require(store.committedEntries(of: "r").last)
        #expect(ended.eventName == "session.ended")
        #expect(try JSONParser.parse(ended.message)["attendance"] == nil)
        let report = try JSONParser.parse(try #require(ended.webhookMessage))
        #expect(report["type"] == "event")
        var finalModel = AttendanceModel()
        for stored in store.committedEntries(of: "r") { finalModel.play(stored.entry) }
        try Self.expect(try #require(report["attendance"]?.arrayValue), toMatch: finalModel)
        #expect(report["attendance"]?.arrayValue?.allSatisfy { $0["lastLeftAt"] != .null } == true)
    }

    /// Every record's totals equal the model's for its participant, in the model's join order.
    private static func expect(_ records: [JSONValue], toMatch model: AttendanceModel) throws {
        #expect(records.compactMap { $0["uid"]?.stringValue } == model.joinOrder)
        for record in records {
            let uid = try #require(record["uid"]?.stringValue)
            let expected = try #require(model.people[uid])
            #expect(record["firstJoinedAt"] == .int(expected.firstJoinedAt), "\(uid)")
            #expect(
                record["lastLeftAt"] == (expected.devices.isEmpty ? .int(expected.lastLeftAt ?? -1) : .null), "\(uid)")
            #expect(record["inCallMs"] == .int(expected.inCall), "\(uid)")
            #expect(record["audioMs"] == .int(expected.audio), "\(uid)")
            #expect(record["videoMs"] == .int(expected.video), "\(uid)")
            #expect(record["presentingMs"] == .int(expected.presenting), "\(uid)")
            #expect(record["speakingMs"] == .int(expected.speaking), "\(uid)")
            #expect(record["handsRaised"] == .int(Int64(expected.handsRaised)), "\(uid)")
        }
    }
}

/// Attendance as the events mean it, written apart from the reducer: every entry advances everyone's clocks, each
/// `active_speaker_shown` hands the speaking time to whom it names.
private struct AttendanceModel {
    struct Person {
        var devices: Set<String> = []
        var firstJoinedAt: Int64
        var lastLeftAt: Int64?
        var flags: Set<ParticipantFlag> = []
        var inCall: Int64 = 0
        var audio: Int64 = 0
        var video: Int64 = 0
        var presenting: Int64 = 0
        var speaking: Int64 = 0
        var handsRaised = 0
    }

    var people: [String: Person] = [:]
    var joinOrder: [String] = []
    var shown: String?
    var shownSince: Int64 = 0
    var now: Int64 = 0

    mutating func account(until time: Int64) {
        let elapsed = time - self.now
        guard elapsed > 0 else { return }
        for uid in self.joinOrder where !(self.people[uid]?.devices.isEmpty ?? true) {
            let flags = self.people[uid]!.flags
            self.people[uid]!.inCall += elapsed
            if !flags.contains(.audioMuted) { self.people[uid]!.audio += elapsed }
            if !flags.contains(.videoPaused) { self.people[uid]!.video += elapsed }
            if flags.contains(.presenting) { self.people[uid]!.presenting += elapsed }
        }
        if let shown = self.shown, self.people[shown]?.devices.isEmpty == false {
            self.people[shown]!.speaking += elapsed
        }
        self.now = time
    }

    mutating func set(_ flag: ParticipantFlag, _ value: Bool, of uid: String) {
        guard self.people[uid] != nil else { return }
        if flag == .handRaised && value && !self.people[uid]!.flags.contains(.handRaised) {
            self.people[uid]!.handsRaised += 1
        }
        if value { self.people[uid]!.flags.insert(flag) } else { self.people[uid]!.flags.remove(flag) }
    }

    mutating func play(_ entry: RoomLogEntry) {
        self.account(until: entry.time)
        switch entry.event {
        case .participantJoined(let uid, let deviceID, _, _, _, _, _, _):
            if self.people[uid] == nil {
                self.people[uid] = Person(firstJoinedAt: entry.time)
                self.joinOrder.append(uid)
            }
            self.people[uid]!.devices.insert(deviceID)
            self.people[uid]!.lastLeftAt = nil
        case .participantLeft(let uid, let deviceID, let reason):
            guard self.people[uid] != nil else { return }
            if reason.endsEveryDevice {
                self.people[uid]!.devices = []
            } else {
                self.people[uid]!.devices.remove(deviceID)
            }
            if self.people[uid]!.devices.isEmpty {
                self.people[uid]!.lastLeftAt = entry.time
                self.set(.presenting, false, of: uid)
                self.set(.handRaised, false, of: uid)
            }
        case .flagChanged(let uid, let flag, let value):
            self.set(flag, value, of: uid)
        case .mutedByModerator(let uid), .hardMuted(let uid, _):
            self.set(.audioMuted, true, of: uid)
        case .activeSpeakerShown(let uid):
            self.shown = uid
        default:
            break
        }
    }
}

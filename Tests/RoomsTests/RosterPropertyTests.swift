import JSONCoding
import RollcallClient
import RoomsTesting
import TestSupport
import Testing
import TokenAuth

@testable import Rooms

/// Why a random roster call stopped: the seed and step make it reproducible.
struct RosterCallFailure: Error, CustomStringConvertible {
    let description: String
}

/// A watcher of the random call: its view, its connection (nil while away) and the roster it mirrors.
struct RosterObserver {
    let uid: String
    var view: JSONValue
    var spec: RosterViewSpec
    let events: EventMode
    var session: SessionID?
    var store: RosterStore?
    /// The sequence number up to which this observer has seen the events its mode takes.
    var lastEvent: UInt64 = 0
}

/// Plays random roster traffic through the gateway — joins from several devices, leaves, every state change,
/// speaker reports, moderation, drops and closes with rejoins, time — while observers of every view type mirror
/// the roster with `RosterStore`, disconnect and resume.
final class RandomRosterCall {
    static let users: [(uid: String, name: String, role: TokenRole)] = [
        ("u-host", "Host", .moderator),
        ("u-ann", "Ann Lee", .participant),
        ("u-jo", "Joanna", .participant),
        ("u-bob", "Bob", .participant),
        ("u-bon", "Bonnie Boyd", .participant),
        ("u-dan", "Dan", .participant),
    ]

    static let views: [(json: JSONValue, spec: RosterViewSpec)] = [
        (["filter": "all"], RosterViewSpec()),
        (["filter": "operators"], RosterViewSpec(filter: .operators)),
        (["filter": "muted"], RosterViewSpec(filter: .muted)),
        (["filter": "banned"], RosterViewSpec(filter: .banned)),
        (["filter": "raised_hands"], RosterViewSpec(filter: .raisedHands)),
        (["filter": "presenters"], RosterViewSpec(filter: .presenters)),
        (["filter": "speakers"], RosterViewSpec(filter: .speakers)),
        (["filter": "search", "query": "An"], RosterViewSpec(filter: .search, query: "An")),
        (
            ["filter": "search", "query": "bo", "match": "substring"],
            RosterViewSpec(filter: .search, query: "bo", match: .substring)
        ),
        (["filter": "all", "limit": 2], RosterViewSpec(limit: 2)),
        (["filter": "muted", "limit": 1], RosterViewSpec(filter: .muted, limit: 1)),
        (
            ["filter": "all", "sort": "name", "offset": 2, "limit": 2],
            RosterViewSpec(sort: .name, offset: 2, limit: 2)
        ),
        (["filter": "raised_hands", "limit": 2], RosterViewSpec(filter: .raisedHands, limit: 2)),
        (
            ["filter": "all", "sort": "recent_speaking", "limit": 3],
            RosterViewSpec(sort: .recentSpeaking, limit: 3)
        ),
        (["filter": "restricted"], RosterViewSpec(filter: .restricted)),
        (["filter": "moderator_muted"], RosterViewSpec(filter: .moderatorMuted)),
        (["filter": "left"], RosterViewSpec(filter: .left)),
        (["filter": "operators", "query": "ho"], RosterViewSpec(filter: .operators, query: "ho")),
    ]

    static let advances: [Int64] = [5, 20, 49, 50, 51, 120, 499, 500, 501, 800, 1_600, 2_500]

    let seed: UInt64
    /// The gateway; a restart replaces it with a new one on the same store and clock.
    var harness: RoomsNodeHarness
    /// The configuration, for a restarted gateway.
    let configure: (inout RoomsConfiguration) -> Void
    /// Every event sent, and the store when the call plays restarts (`RosterPropertyTests+Resume.swift`).
    let ledger: ResumeLedger
    var generator: SplitMix64
    /// Participant sessions by "uid/device".
    var devices: [String: SessionID] = [:]
    /// Joins waiting in the waiting room, by "uid/device": a device once admitted, closed once turned away.
    var waitingDevices: [String: SessionID] = [:]
    /// How many waiting joins were admitted and turned away (or ran out), so the test can insist on both.
    var admittedJoins = 0
    var refusedWaits = 0
    var observers: [RosterObserver] = []
    /// The host watching as an observer and acting from there (RosterPropertyTests+Semantics).
    var watchingHost: SessionID?
    /// What the semantics steps exercised (RosterPropertyTests+Semantics).
    var semanticsCounts = SemanticsCounts()
    var step = 0
    /// What the run exercised, so the test can insist that it exercised something.
    var checks = 0
    var livePatches = 0
    var recoveredResumes = 0
    var snapshotResumes = 0

    /// - Parameters:
    ///   - seed: the seed of every random choice.
    ///   - resumeFocus: a short history, a store in every other call, and bursts and restarts more often.
    init(seed: UInt64, resumeFocus: Bool = false) throws {
        var generator = SplitMix64(seed: seed)
        let window: Int64 = generator.next() % 2 == 0 ? 0 : 50
        let immediateLeaves = generator.next() % 2 == 0
        let shortHistory = generator.next() % 3 == 0 || resumeFocus
        self.seed = seed
        self.configure = {
            $0.patchWindowMilliseconds = window
            $0.immediateLeaves = immediateLeaves
            $0.reconnectGraceMilliseconds = 1_500
            $0.speakerStableMilliseconds = 500
            $0.roomCapacity = 20
            if shortHistory { $0.history = HistoryRetention(maximumEntries: 12) }
        }
        self.ledger = ResumeLedger(
            store: generator.next() % (resumeFocus ? 2 : 4) == 0 ? InMemoryRoomStore() : nil,
            storeCheckpointInterval: 5 + generator.next() % 20, resumeFocus: resumeFocus)
        self.harness = try RoomsNodeHarness(store: self.ledger.store, configure: self.configure)
        self.harness.gateway.storeCheckpointInterval = self.ledger.storeCheckpointInterval
        let count = 3 + Int(generator.next() % 3)
        for index in 0..<count {
            let view = Self.views[Int(generator.next() % UInt64(Self.views.count))]
            let events = [EventMode.all, .notable, .none][Int(generator.next() % 3)]
            self.observers.append(RosterObserver(uid: "o-\(index)", view: view.json, spec: view.spec, events: events))
        }
        self.generator = generator
        try self.startRecorder()
    }

    func fail(_ text: String) -> RosterCallFailure {
        RosterCallFailure(description: "seed \(self.seed), step \(self.step): \(text)")
    }

    func random(_ bound: Int) -> Int { Int(self.generator.next() % UInt64(bound)) }

    func pick<T>(_ choices: [T]) -> T { choices[self.random(choices.count)] }

    // MARK: Steps

    func run(steps: Int) throws {
        for _ in 0..<steps {
            self.step += 1
            try self.playStep()
            try self.deliver()
            try self.checkMirrors()
        }
        // Let every window and hold run out, then every mirror must be the server's view.
        self.harness.advance(milliseconds: 600)
        // A device whose grace runs out opens one more window.
        for _ in 0..<10 where self.harness.gateway.hasPendingRosterChanges(room: "r") {
            self.harness.advance(milliseconds: 100)
        }
        try self.deliver()
        if self.harness.gateway.hasPendingRosterChanges(room: "r") { throw self.fail("changes still pending") }
        try self.checkMirrors()
        try self.compareWithFreshObservers()
    }

    private func playStep() throws {
        if try self.playResumeStep() { return }
        switch self.random(24) {
        case 0, 1, 2:
            try self.joinDevice()
        case 3:
            self.send(from: self.pickDevice(), ["type": "leave", "room": "r"])
        case 4, 5, 6:
            self.changeState()
        case 7:
            if self.random(2) == 0 { self.changeState() } else { self.changeAttributes() }
        case 8, 9:
            // A participant reports that it speaks or stopped; now and then one forges another's report, which the
            // gateway refuses.
            guard let key = self.devices.keys.sorted().randomElement(using: &self.generator) else { break }
            let own = String(key.prefix { $0 != "/" })
            let uid: JSONValue = [.string(own), .string(own), .null, .string(self.pick(Self.users.map(\.uid)))][
                self.random(4)]
            self.send(from: self.devices[key], ["type": "speaker", "room": "r", "uid": uid])
        case 10, 11, 12:
            self.moderate()
        case 13:
            if let key = self.devices.keys.sorted().randomElement(using: &self.generator) {
                self.harness.close(self.devices.removeValue(forKey: key)!, cleanly: self.random(2) == 0)
            }
        case 14, 15, 16:
            self.harness.advance(milliseconds: self.pick(Self.advances))
        case 17, 18:
            try self.toggleObserver(self.random(self.observers.count))
        case 19:
            self.switchView(self.random(self.observers.count))
        default:
            // Hidden participants, moderators watching as observers, token refreshes (RosterPropertyTests+Semantics).
            try self.playSemanticsStep()
        }
    }

    func pickDevice() -> SessionID? {
        self.devices.keys.sorted().randomElement(using: &self.generator).flatMap { self.devices[$0] }
    }

    func send(from session: SessionID?, _ message: JSONValue) {
        guard let session else { return }
        self.harness.send(session, message)
    }

    private func joinDevice() throws {
        let user = self.pick(Self.users)
        let device = self.pick(["web", "phone"])
        let key = "\(user.uid)/\(device)"
        if self.waitingDevices[key] != nil { return }
        if let session = self.devices[key] {
            self.harness.send(session, ["type": "state", "room": "r", "handRaised": .bool(self.random(2) == 0)])
            return
        }
        let session = try self.harness.connect(user.uid, name: user.name, rooms: ["r": user.role])
        self.harness.send(
            session,
            [
                "type": "join", "room": "r", "device": .string(device),
                "callType": .string(self.pick(["audio", "video"])),
            ])
        let answer = self.harness.transport.messages[session] ?? []
        if answer.first?["type"] == "ack" {
            self.devices[key] = session
        } else if answer.first?["type"] == "waiting" {
            self.waitingDevices[key] = session
        } else {
            // Banned, most likely: the connection stays open but is in no room.
            self.harness.close(session, cleanly: true)
        }
    }

    /// A participant sets or removes one of its attributes.
    private func changeAttributes() {
        let key = self.pick(["pronouns", "team", "title"])
        let value: JSONValue = self.random(3) == 0 ? .null : .string(self.pick(["a", "b", "c"]))
        let message: JSONValue = [
            "type": "attributes", "room": "r", "attributes": .object(JSONObject(uniqueKeysWithValues: [(key, value)])),
        ]
        self.send(from: self.pickDevice(), message.merging(self.version()))
    }

    /// Half the time a version check (`ifSeq`) for a write: the room's sequence number or one a little before it,
    /// so that some writes are stale (`ERR_CONFLICT`, nothing changes) and some go through.
    func version() -> JSONValue {
        guard self.random(2) == 0 else { return [:] }
        return ["ifSeq": .int(max(0, self.harness.sequence("r") - Int64(self.random(3))))]
    }

    private func changeState() {
        var fields: [(String, JSONValue)] = [("type", "state"), ("room", "r")]
        let all = ["audioMuted", "videoPaused", "presenting", "handRaised", "mid", "cameraFacing"]
        var chosen = Set([self.pick(all)])
        if self.random(3) == 0 { chosen.insert(self.pick(all)) }
        for field in all where chosen.contains(field) {
            switch field {
            case "mid": fields.append((field, .string(self.pick(["m1", "m2", "m3"]))))
            case "cameraFacing": fields.append((field, .string(self.pick(["front", "back"]))))
            default: fields.append((field, .bool(self.random(2) == 0)))
            }
        }
        self.send(from: self.pickDevice(), .object(JSONObject(uniqueKeysWithValues: fields)))
    }

    /// A moderator action, a recording switch or a change of permissions or metadata, from the host's device or
    /// from `session` (the host watching as an observer).
    func moderate(from session: SessionID? = nil) {
        let host =
            session ?? self.devices.filter { $0.key.hasPrefix("u-host/") }.sorted { $0.key < $1.key }.first?.value
        let actions = [
            "mute", "mute", "mute_all", "spotlight", "unspotlight", "promote", "demote", "lower_hand",
            "ban", "unban", "unban", "remove", "hard_mute", "ask_unmute", "lower_all_hands", "permissions", "metadata",
            "lock", "unlock", "unlock", "floor", "floor_queue", "open_floor", "stop_share", "hand_floor",
            "require_admission", "require_admission", "require_admission", "open_admission", "admit", "admit",
            "admit", "admit_all", "deny", "deny", "deny_all",
        ]
        let action = self.pick(actions)
        let target = JSONValue.string(self.pick(Self.users.dropFirst().map(\.uid)))
        var fields: [(String, JSONValue)] = [("type", "action"), ("room", "r")]
        switch action {
        case "hard_mute":
            fields += [("action", "mute"), ("target", target), ("hard", true)]
            if self.random(2) == 0 { fields.append(("durationMs", .int(Int64(self.pick([1_000, 3_000]))))) }
        case "permissions":
            let which = self.pick(["unmute", "share", "meetings", "hidden"])
            fields = [
                ("type", "permissions"), ("room", "r"), ("uid", target),
                ("permissions", .object(JSONObject(uniqueKeysWithValues: [(which, .bool(self.random(3) == 0))]))),
            ]
        case "metadata":
            let value: JSONValue = self.random(3) == 0 ? .null : .string(self.pick(["Q3", "retro", "all hands"]))
            fields = [("type", "metadata"), ("room", "r"), ("metadata", ["topic": value])]
        case "floor_queue":
            fields += [("action", "floor"), ("queue", true), ("limit", .int(Int64(1 + self.random(2))))]
        case "mute_all", "lower_all_hands", "lock", "unlock", "floor", "open_floor", "require_admission",
            "open_admission", "admit_all", "deny_all":
            fields.append(("action", .string(action)))
        default:
            fields += [("action", .string(action)), ("target", target)]
        }
        if self.random(2) == 0 {
            self.send(from: host, ["type": "media", "room": "r", "recording": .bool(self.random(2) == 0)])
        }
        let message = JSONValue.object(JSONObject(uniqueKeysWithValues: fields))
        let versioned = action == "permissions" || action == "metadata"
        self.send(from: host, versioned ? message.merging(self.version()) : message)
    }

    /// Disconnects an observer, or brings it back: with `resume` when it mirrored the roster before.
    private func toggleObserver(_ index: Int) throws {
        if let session = self.observers[index].session {
            try self.deliver()
            self.harness.close(session, cleanly: self.random(2) == 0)
            self.observers[index].session = nil
            return
        }
        let observer = self.observers[index]
        let session = try self.harness.connect(observer.uid, rooms: ["r": .viewer])
        var fields: [(String, JSONValue)] = [
            ("type", "join"), ("id", "j"), ("room", "r"), ("as", "observer"), ("view", observer.view),
            ("events", .string(observer.events.rawValue)),
        ]
        let resuming = observer.store != nil && self.random(4) != 0
        if resuming {
            fields += self.resumeFields(for: index)
        } else {
            self.observers[index].store = nil
        }
        let expectation = self.resumeExpectation(for: index, resuming: resuming)
        self.observers[index].session = session
        self.harness.send(session, .object(JSONObject(uniqueKeysWithValues: fields)))
        let answer = self.harness.drainWithPatches(session)
        guard answer.first?["type"] == "ack", let ackSequence = answer.first?["seq"]?.intValue else {
            throw self.fail("observer join refused: \(answer)")
        }
        let rest = Array(answer.dropFirst())
        if let resumed = rest.last, resumed["type"] == "resumed" {
            guard let expectation, resumed["recovered"] == true else {
                throw self.fail("unexpected resumed: \(answer)")
            }
            let replayed = Array(rest.dropLast())
            guard replayed.allSatisfy({ $0["recovered"] == true && $0["type"] != "snapshot" }) else {
                throw self.fail("a recovery mixed with other messages: \(answer)")
            }
            let order = replayed.compactMap { $0["seq"]?.intValue }
            if order != order.sorted() { throw self.fail("recovered messages out of log order: \(order)") }
            // Each replayed event is checked against the ledger as it is applied: none skipped, none twice.
            try self.apply(replayed, to: index)
            try self.finishRecovery(index, resumedAt: UInt64(resumed["seq"]?.intValue ?? 0), expectation)
            self.recoveredResumes += 1
        } else {
            guard rest.count == 1, rest[0]["type"] == "snapshot" else {
                throw self.fail("expected one snapshot after the ack: \(answer)")
            }
            if let expectation {
                guard rest[0]["recovered"] == false else { throw self.fail("resume snapshot not marked: \(rest[0])") }
                try self.acceptFreshSnapshot(index, expectation, answer: answer)
                self.snapshotResumes += 1
            }
            try self.apply(rest, to: index)
            self.observers[index].lastEvent = UInt64(ackSequence)
        }
    }

    private func switchView(_ index: Int) {
        guard let session = self.observers[index].session else { return }
        let view = self.pick(Self.views)
        self.observers[index].view = view.json
        self.observers[index].spec = view.spec
        self.harness.send(session, ["type": "view", "id": "v", "room": "r", "view": view.json])
    }

    // MARK: Mirrors

    /// Drains every session; observers feed their stores.
    func deliver() throws {
        try self.recordEvents()
        // A waiting join answered: admitted (its ack, then its snapshot) it is a device, turned away it closes.
        for (key, session) in self.waitingDevices.sorted(by: { $0.key < $1.key }) {
            let answers = self.harness.transport.messages[session] ?? []
            if answers.contains(where: { $0["type"] == "ack" }) {
                self.waitingDevices[key] = nil
                if self.devices[key] == nil {
                    self.devices[key] = session
                    self.admittedJoins += 1
                    continue
                }
            } else if answers.contains(where: { $0["type"] == "error" }) {
                self.waitingDevices[key] = nil
                self.refusedWaits += 1
            } else if self.harness.closeCode(session) == nil {
                continue
            } else {
                self.waitingDevices[key] = nil
            }
            self.harness.close(session, cleanly: true)
        }
        for session in self.devices.values { _ = self.harness.drainWithPatches(session) }
        for (key, session) in self.devices where self.harness.closeCode(session) != nil {
            self.devices[key] = nil
        }
        for index in self.observers.indices {
            guard let session = self.observers[index].session else { continue }
            try self.apply(self.harness.drainWithPatches(session), to: index)
        }
        try self.checkObserversCaughtUp()
    }

    private func apply(_ messages: [JSONValue], to index: Int) throws {
        for message in messages {
            let recovered = message["recovered"] == true
            switch message["type"]?.stringValue {
            case "snapshot":
                do {
                    self.observers[index].store = try RosterStore(snapshot: message)
                } catch {
                    throw self.fail("\(self.observers[index].uid): \(error)")
                }
            case "patch":
                guard var store = self.observers[index].store else { throw self.fail("a patch before a snapshot") }
                if recovered, (message["seq"]?.intValue ?? 0) <= Int64(store.sequence) {
                    throw self.fail(
                        "\(self.observers[index].uid) at \(store.sequence) got an old patch again: \(message)")
                }
                if !recovered, message["from"]?.intValue != Int64(store.sequence) {
                    throw self.fail("\(self.observers[index].uid) at \(store.sequence) got a live patch \(message)")
                }
                do {
                    try store.apply(patch: message)
                } catch {
                    throw self.fail("\(self.observers[index].uid) (\(self.observers[index].spec)): \(error)")
                }
                self.observers[index].store = store
                if !recovered { self.livePatches += 1 }
            case "event":
                try self.checkAudience(of: message, receivedBy: self.observers[index].uid)
                let sequence = UInt64(message["seq"]?.intValue ?? 0)
                guard sequence > self.observers[index].lastEvent else {
                    throw self.fail("\(self.observers[index].uid) got event \(sequence) again")
                }
                try self.checkNothingSkipped(index, before: sequence)
                self.observers[index].lastEvent = sequence
            case "ack", "resumed":
                break
            default:
                throw self.fail("\(self.observers[index].uid) got \(message)")
            }
        }
    }

    /// Once nothing is pending, every connected observer's mirror is the view the server renders now.
    private func checkMirrors() throws {
        let gateway = self.harness.gateway
        try self.checkHiddenStayHidden()
        guard !gateway.hasPendingRosterChanges(room: "r") else { return }
        for observer in self.observers {
            guard observer.session != nil else { continue }
            guard let store = observer.store else { throw self.fail("\(observer.uid) has no roster") }
            let expected = gateway.renderedView(room: "r", spec: observer.spec)
            guard JSONValue.object(store.roster) == expected else {
                throw self.fail(
                    """
                    \(observer.uid) (\(observer.spec)) mirrors
                    \(JSONValue.object(store.roster))
                    but the server renders
                    \(expected.map { "\($0)" } ?? "nothing")
                    """)
            }
            try self.checkCountsAndTotal(of: observer, store: store)
            self.checks += 1
        }
    }

    /// The mirror's room entry counts what the participants' entries show (tallied apart from the server's
    /// `RoomState.viewCounts`), and its total is the size of the view without its window.
    private func checkCountsAndTotal(of observer: RosterObserver, store: RosterStore) throws {
        let gateway = self.harness.gateway
        guard let state = gateway.roomState("r") else { return }
        let room = store.roster["room"]
        guard room?["counts"] == .object(RoomRecordTests.tally(state)) else {
            throw self.fail("\(observer.uid) (\(observer.spec)) counts \(room?["counts"].map { "\($0)" } ?? "nothing")")
        }
        var whole = observer.spec
        whole.offset = nil
        whole.limit = nil
        let total = gateway.renderedView(room: "r", spec: whole)?["participants"]?.objectValue?.count
        guard room?["total"] == total.map({ .int(Int64($0)) }) else {
            throw self.fail(
                "\(observer.uid) (\(observer.spec)) has total \(room?["total"].map { "\($0)" } ?? "nothing")")
        }
    }

    /// A subscriber joining now with the same view gets a snapshot equal to each connected mirror.
    private func compareWithFreshObservers() throws {
        for observer in self.observers {
            guard observer.session != nil, let store = observer.store else { continue }
            let session = try self.harness.connect("o-fresh", rooms: ["r": .viewer])
            self.harness.send(
                session,
                [
                    "type": "join", "room": "r", "as": "observer", "view": observer.view, "events": "none",
                ])
            let snapshot = self.harness.drainWithPatches(session).first(type: "snapshot")
            guard snapshot?["roster"] == .object(store.roster), snapshot?["checksum"]?.stringValue == store.checksum
            else {
                throw self.fail("\(observer.uid) differs from a fresh snapshot: \(snapshot.map { "\($0)" } ?? "none")")
            }
            self.harness.close(session, cleanly: true)
        }
    }
}

@Suite struct RosterPropertyTests {
    static let callsPerSlice = 250

    /// 2,000 seeded calls of 30 to 80 steps in eight slices, so the slices can run side by side.
    @Test(arguments: 0..<8)
    func everyMirrorEqualsTheServersViewAfterEveryStep(slice: Int) throws {
        let count = Self.callsPerSlice
        var checks = 0
        var livePatches = 0
        var recovered = 0
        var snapshots = 0
        var semantics = SemanticsCounts()
        var admitted = 0
        var refused = 0
        for index in 0..<count {
            let seed = UInt64(slice * count + index + 1)
            let call = try RandomRosterCall(seed: seed)
            var lengths = SplitMix64(seed: seed ^ 0xA5A5)
            try call.run(steps: 30 + Int(lengths.next() % 51))
            checks += call.checks
            livePatches += call.livePatches
            recovered += call.recoveredResumes
            snapshots += call.snapshotResumes
            semantics.add(call.semanticsCounts)
            admitted += call.admittedJoins
            refused += call.refusedWaits
        }
        // The traffic must exercise the mirrors, the patches and both kinds of resume.
        #expect(checks > count * 20)
        #expect(livePatches > count * 10)
        #expect(recovered > count / 10)
        #expect(snapshots > 0)
        // The waiting room: joins that waited and were let in or turned away.
        #expect(admitted + refused > 0, "admitted \(admitted), refused \(refused)")
        // Hidden recorders acting, a host moderating while watching, refreshes that change a role or drop the room.
        #expect(semantics.hiddenActions > count / 2, "\(semantics)")
        #expect(semantics.watchingHostActions > count / 2, "\(semantics)")
        #expect(semantics.roleRefreshes > count / 4 && semantics.roomsDropped > count / 10, "\(semantics)")
    }
}

extension JSONValue {
    /// An object with the members of `other` added (a message with its optional fields).
    fileprivate func merging(_ other: JSONValue) -> JSONValue {
        guard case .object(var object) = self, case .object(let extra) = other else { return self }
        for (key, value) in extra.entries { object[key] = value }
        return .object(object)
    }
}

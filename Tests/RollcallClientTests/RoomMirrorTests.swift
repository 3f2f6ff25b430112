import Foundation
import JSONCoding
import TestSupport
import Testing

@testable import RollcallClient

/// A subscription's bookkeeping without sockets: the join it sends, its resume positions, its rejoins, and the shared
/// vectors (`Tests/Vectors`) applied through it.
@Suite struct RoomMirrorTests {
    static let limits = JSONParser.Limits(
        maxInputBytes: 1 << 24, maxDepth: 10_000, maxStringBytes: 1 << 22, maxElementsPerContainer: 1 << 16,
        maxTotalNodes: 1 << 20)

    static func vectors(_ name: String) throws -> JSONValue { try SharedVectors.load(name, limits: Self.limits) }

    /// The roster of the "two participants" checksum vector.
    static func twoParticipants() throws -> JSONObject {
        let cases = try #require(try Self.vectors("roster-checksum.json")["cases"]?.arrayValue)
        let vector = try #require(cases.first { $0["name"] == "two participants" })
        return try #require(vector["roster"]?.objectValue)
    }

    static func snapshot(_ roster: JSONObject, seq: Int64, extra: JSONObject = JSONObject()) -> JSONValue {
        var message: JSONObject = [
            "type": "snapshot", "room": "r", "seq": .int(seq), "roster": .object(roster),
            "checksum": .string(RosterChecksum.hex(of: roster)),
        ]
        for (key, value) in extra.entries { message[key] = value }
        return .object(message)
    }

    static func patch(
        _ before: JSONObject, _ after: JSONObject, from: Int64, to: Int64, extra: JSONObject = JSONObject()
    ) -> JSONValue {
        var message: JSONObject = [
            "type": "patch", "room": "r", "from": .int(from), "seq": .int(to),
            "patch": .object(JSONMergePatch.diff(before, after) ?? JSONObject()),
            "checksum": .string(RosterChecksum.hex(of: after)),
        ]
        for (key, value) in extra.entries { message[key] = value }
        return .object(message)
    }

    static func event(_ seq: Int64, _ name: String = "participant.hand_raised", recovered: Bool = false) -> JSONValue {
        [
            "type": "event", "room": "r", "seq": .int(seq), "event": .string(name), "actor": "u-bob",
            "data": ["uid": "u-bob"], "recovered": .bool(recovered),
        ]
    }

    /// The roster with Bob's hand raised or lowered.
    static func raised(_ roster: JSONObject, _ value: Bool) throws -> JSONObject {
        var participants = try #require(roster["participants"]?.objectValue)
        var bob = try #require(participants["u-bob"]?.objectValue)
        bob["handRaised"] = .bool(value)
        participants["u-bob"] = .object(bob)
        var after = roster
        after["participants"] = .object(participants)
        return after
    }

    static func isDrift(_ change: RoomChange?) -> Bool {
        if case .driftDetected = change { return true }
        return false
    }

    @Test func theFirstJoinCarriesNoPositionsAndAnObserversNoCallType() {
        let mirror = RoomMirror(
            room: "r", device: "bot-1", view: .raisedHands, events: .notable, callType: "audio")
        #expect(
            mirror.joinMessage(resume: true) == [
                "type": "join", "room": "r", "device": "bot-1", "callType": "audio",
                "view": ["filter": "raised_hands"], "events": "notable",
            ])
        let observer = RoomMirror(room: "r", kind: .observer, callType: "audio")
        #expect(observer.joinMessage(resume: false)["as"] == "observer")
        #expect(observer.joinMessage(resume: false)["callType"] == nil)
    }

    @Test func positionsFollowPatchesAndEventsSeparately() throws {
        let roster = try Self.twoParticipants()
        var mirror = RoomMirror(room: "r")
        let first = mirror.handle(Self.snapshot(roster, seq: 5))
        #expect(first == RoomMirror.Outcome(changes: [.snapshotReplaced(resync: false, recovered: nil)]))
        #expect(mirror.rosterSequence == 5 && mirror.lastEventSequence == 5)
        // Events go out at once, patches after the coalescing window: the two positions differ.
        let event = mirror.handle(Self.event(6))
        guard case .eventReceived(let received) = event.changes.first else {
            Issue.record("no event in \(event)")
            return
        }
        #expect(received.sequence == 6 && received.name == "participant.hand_raised")
        #expect(mirror.handle(Self.event(6)) == RoomMirror.Outcome(), "an event seen already is not published twice")
        #expect(mirror.rosterSequence == 5 && mirror.lastEventSequence == 6)
        let patched = mirror.handle(Self.patch(roster, try Self.raised(roster, false), from: 5, to: 6))
        #expect(patched == RoomMirror.Outcome(changes: [.participantUpdated(uid: "u-bob")]))
        let rejoin = mirror.joinMessage(resume: true)
        #expect(rejoin["resume"] == 6 && rejoin["resumeEvents"] == 6)
    }

    @Test func aPatchMovesTheEventPositionSoAQuietModeResumesFromItsRoster() throws {
        let roster = try Self.twoParticipants()
        var mirror = RoomMirror(room: "r", events: .notable)
        _ = mirror.handle(Self.snapshot(roster, seq: 5))
        _ = mirror.handle(Self.event(7, "meeting.message"))
        _ = mirror.handle(Self.patch(roster, try Self.raised(roster, false), from: 5, to: 495))
        // Messages arrive in log order: the patch at 495 means every event up to it that the room takes came first.
        #expect(mirror.lastEventSequence == 495)
        let rejoin = mirror.joinMessage(resume: true)
        #expect(rejoin["resume"] == 495 && rejoin["resumeEvents"] == 495)
    }

    @Test func aResumeReplaysOnceAndReportsRecovered() throws {
        let roster = try Self.twoParticipants()
        var mirror = RoomMirror(room: "r")
        _ = mirror.handle(Self.snapshot(roster, seq: 5))
        let after = try Self.raised(roster, false)
        _ = mirror.handle(Self.patch(roster, after, from: 5, to: 7))
        // The replay repeats a patch the roster holds, then the missed events, then `resumed`.
        #expect(mirror.handle(Self.patch(roster, after, from: 5, to: 7, extra: ["recovered": true])) == .init())
        let replayed = mirror.handle(Self.event(8, "session.connection_restored", recovered: true))
        guard case .eventReceived(let event) = replayed.changes.first else {
            Issue.record("no event in \(replayed)")
            return
        }
        #expect(event.recovered)
        let resumed = mirror.handle(["type": "resumed", "room": "r", "seq": 9, "recovered": true])
        #expect(resumed == RoomMirror.Outcome(changes: [.resumed(recovered: true)]))
        #expect(mirror.recovered == true && mirror.lastEventSequence == 9 && mirror.rosterSequence == 7)
    }

    @Test func aResumeThatCouldNotBeServedReplacesTheRoster() throws {
        let roster = try Self.twoParticipants()
        var mirror = RoomMirror(room: "r")
        _ = mirror.handle(Self.snapshot(roster, seq: 5))
        let fresh = mirror.handle(Self.snapshot(try Self.raised(roster, false), seq: 40, extra: ["recovered": false]))
        #expect(fresh.changes == [.snapshotReplaced(resync: false, recovered: false), .resumed(recovered: false)])
        #expect(mirror.rosterSequence == 40 && mirror.recovered == false)
        #expect(mirror.store?["u-bob"]?.handRaised == false)
    }

    @Test func aGapRejoinsWithResumeAndAMismatchForAFreshSnapshot() throws {
        let roster = try Self.twoParticipants()
        var mirror = RoomMirror(room: "r")
        _ = mirror.handle(Self.snapshot(roster, seq: 5))
        let gap = mirror.handle(Self.patch(roster, try Self.raised(roster, false), from: 6, to: 7))
        #expect(Self.isDrift(gap.changes.first) && gap.rejoin == RoomMirror.Rejoin(resume: true))
        let wrong = mirror.handle(
            Self.patch(roster, try Self.raised(roster, false), from: 5, to: 7, extra: ["checksum": "ffffffffffffffff"]))
        #expect(Self.isDrift(wrong.changes.first) && wrong.rejoin == RoomMirror.Rejoin(resume: false))
        #expect(mirror.rosterSequence == 5, "a refused patch leaves the roster where it was")
        #expect(mirror.store?["u-bob"]?.handRaised == true)
        let behind = mirror.handle(Self.patch(roster, try Self.raised(roster, false), from: 3, to: 4))
        #expect(Self.isDrift(behind.changes.first) && behind.rejoin == RoomMirror.Rejoin(resume: false))
    }

    @Test func rejoinsStopAfterAStreakAndStartAgainAfterAGoodPatch() throws {
        let roster = try Self.twoParticipants()
        var mirror = RoomMirror(room: "r")
        _ = mirror.handle(Self.snapshot(roster, seq: 5))
        let gap = Self.patch(roster, try Self.raised(roster, false), from: 6, to: 7)
        let rejoins = (0..<(RoomMirror.maximumDriftStreak + 2)).map { _ in mirror.handle(gap).rejoin }
        #expect(
            Array(rejoins.prefix(RoomMirror.maximumDriftStreak))
                == Array(repeating: RoomMirror.Rejoin(resume: true), count: RoomMirror.maximumDriftStreak))
        #expect(Array(rejoins.dropFirst(RoomMirror.maximumDriftStreak)) == [nil, nil])
        #expect(mirror.driftStreak == RoomMirror.maximumDriftStreak + 2)
        _ = mirror.handle(Self.patch(roster, try Self.raised(roster, false), from: 5, to: 6))
        #expect(mirror.driftStreak == 0)
        let later = Self.patch(roster, try Self.raised(roster, false), from: 8, to: 9)
        #expect(mirror.handle(later).rejoin == RoomMirror.Rejoin(resume: true))
    }

    @Test func patchesBeforeAnySnapshotAreIgnored() throws {
        let roster = try Self.twoParticipants()
        var mirror = RoomMirror(room: "r")
        #expect(mirror.handle(Self.patch(roster, try Self.raised(roster, false), from: 5, to: 6)) == .init())
        #expect(mirror.joinMessage(resume: true)["resume"] == nil)
        #expect(mirror.store == nil && mirror.rosterSequence == 0)
    }

    @Test func aSnapshotWithoutARosterDriftsForAFreshOne() {
        var mirror = RoomMirror(room: "r")
        let outcome = mirror.handle(["type": "snapshot", "room": "r", "seq": 3])
        #expect(Self.isDrift(outcome.changes.first) && outcome.rejoin == RoomMirror.Rejoin(resume: false))
        #expect(mirror.store == nil)
    }

    @Test func aMirrorStartedFromEachChecksumVectorAcceptsItsChecksumAndRefusesAnother() throws {
        let cases = try #require(try Self.vectors("roster-checksum.json")["cases"]?.arrayValue)
        #expect(cases.count >= 7)
        for vector in cases {
            let roster = try #require(vector["roster"]?.objectValue)
            let checksum = try #require(vector["checksum"]?.stringValue)
            var mirror = RoomMirror(room: "r")
            let message: JSONValue = [
                "type": "snapshot", "room": "r", "seq": 1, "roster": .object(roster), "checksum": .string(checksum),
            ]
            #expect(mirror.handle(message).rejoin == nil, "\(vector["name"] ?? .null)")
            #expect(mirror.store?.checksum == checksum && mirror.store?.serverChecksum == checksum)
            var other = RoomMirror(room: "r")
            let flipped = String(checksum.dropLast()) + (checksum.hasSuffix("0") ? "1" : "0")
            var wrong = try #require(message.objectValue)
            wrong["checksum"] = .string(flipped)
            let refused = other.handle(.object(wrong))
            #expect(Self.isDrift(refused.changes.first) && other.store == nil, "\(vector["name"] ?? .null)")
        }
    }

    @Test("a view's counts and total read from the vectors' rosters, and follow the vectors' patches")
    func countsAndTotalFollowTheVectors() throws {
        let cases = try #require(try Self.vectors("roster-checksum.json")["cases"]?.arrayValue)
        let page = try #require(cases.first { $0["name"]?.stringValue?.hasPrefix("a raised_hands view") == true })
        var mirror = RoomMirror(room: "r")
        _ = mirror.handle(Self.snapshot(try #require(page["roster"]?.objectValue), seq: 1))
        let store = try #require(mirror.store)
        #expect(
            store.counts
                == RollcallViewCounts(
                    inCall: 2, handsRaised: 1, muted: 1, video: 2, presenting: 1,
                    roles: ["moderator": 1, "participant": 1]))
        #expect(store.viewTotal == 1 && store.counts.count(role: "viewer") == 0)
        let empty = try #require(cases.first { $0["name"]?.stringValue?.hasPrefix("an empty room: counts") == true })
        var emptyMirror = RoomMirror(room: "r")
        _ = emptyMirror.handle(Self.snapshot(try #require(empty["roster"]?.objectValue), seq: 1))
        #expect(emptyMirror.store?.counts == RollcallViewCounts() && emptyMirror.store?.viewTotal == 0)
        // The last viewer leaves and the last hand goes down: their counts come as nulls and read 0.
        let diffs = try #require(try Self.vectors("merge-patch.json")["diff"]?.arrayValue)
        let leave = try #require(diffs.first { $0["name"]?.stringValue?.hasPrefix("the last viewer leaves") == true })
        let before = try #require(leave["before"]?.objectValue)
        let after = try #require(leave["after"]?.objectValue)
        var patched = RoomMirror(room: "r")
        _ = patched.handle(Self.snapshot(before, seq: 10))
        #expect(patched.store?.counts.count(role: "viewer") == 1 && patched.store?.counts.handsRaised == 1)
        _ = patched.handle(Self.patch(before, after, from: 10, to: 11))
        #expect(patched.store?.counts.count(role: "viewer") == 0 && patched.store?.counts.handsRaised == 0)
        #expect(patched.store?.counts.inCall == 2 && patched.store?.viewTotal == 2)
    }

    @Test func eachDiffVectorAppliedAsAPatchReachesItsRosterAndReportsWhoChanged() throws {
        let cases = try #require(try Self.vectors("merge-patch.json")["diff"]?.arrayValue)
        #expect(!cases.isEmpty)
        for vector in cases {
            let name = "\(vector["name"] ?? .null)"
            let before = try #require(vector["before"]?.objectValue)
            let after = try #require(vector["after"]?.objectValue)
            var mirror = RoomMirror(room: "r")
            _ = mirror.handle(Self.snapshot(before, seq: 10))
            let message: JSONValue = [
                "type": "patch", "room": "r", "from": 10, "seq": 11, "patch": vector["patch"] ?? .null,
                "checksum": .string(RosterChecksum.hex(of: after)),
            ]
            let outcome = mirror.handle(message)
            #expect(outcome.rejoin == nil && mirror.store?.roster == after && mirror.rosterSequence == 11, "\(name)")
            // Who changed, read from the two rosters rather than from the patch.
            let old = before["participants"]?.objectValue ?? JSONObject()
            let new = after["participants"]?.objectValue ?? JSONObject()
            var expected: Set<RoomChange> = []
            if before["room"] != after["room"] { expected.insert(.roomUpdated) }
            for uid in old.keys where new[uid] == nil { expected.insert(.participantRemoved(uid: uid)) }
            for uid in new.keys {
                if old[uid] == nil {
                    expected.insert(.participantAdded(uid: uid))
                } else if old[uid] != new[uid] {
                    expected.insert(.participantUpdated(uid: uid))
                }
            }
            #expect(Set(outcome.changes) == expected && outcome.changes.count == expected.count, "\(name)")
        }
    }
}

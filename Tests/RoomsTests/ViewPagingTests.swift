import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// Views for large rooms: orders, windows further down the list, filters combined with a name, attendance, the
/// moderator's mutes; and paging through the members while the room churns.
@Suite struct ViewPagingTests {
    /// Eight participants joined in the order of `names`, every change sent at once.
    struct Crowd {
        static let names = ["Hugo", "ann", "Eve", "bob", "Dana", "Carl", "Gil", "Fay"]
        let harness: RoomsNodeHarness
        var sessions: [String: SessionID] = [:]

        init() throws {
            self.harness = try RoomsNodeHarness { $0.patchWindowMilliseconds = 0 }
            for name in Self.names {
                self.sessions[name] = try self.harness.joinQuietly("u-\(name.lowercased())", name: name)
                self.harness.advance(milliseconds: 10)
            }
        }

        func uids(_ spec: RosterViewSpec) -> [String] {
            RosterView.members(self.harness.gateway.roomState("r")!, spec: spec, speaker: nil)
        }
    }

    @Test func aViewSortedByNameIsCutIntoPagesByOffsetAndLimit() throws {
        let crowd = try Crowd()
        #expect(crowd.uids(RosterViewSpec(sort: .name, limit: 3)) == ["u-ann", "u-bob", "u-carl"])
        #expect(crowd.uids(RosterViewSpec(sort: .name, offset: 3, limit: 3)) == ["u-dana", "u-eve", "u-fay"])
        #expect(crowd.uids(RosterViewSpec(sort: .name, offset: 6, limit: 3)) == ["u-gil", "u-hugo"])
        // A live page follows the list: when Carl leaves, Dana moves up into the first page and Gil into the second.
        let page = try RosterMirror(crowd.harness, view: ["filter": "all", "sort": "name", "offset": 3, "limit": 3])
        #expect(Set(page.participants.keys) == ["u-dana", "u-eve", "u-fay"])
        crowd.harness.send(crowd.sessions["Carl"]!, ["type": "leave", "room": "r"])
        try page.sync()
        #expect(Set(page.participants.keys) == ["u-eve", "u-fay", "u-gil"])
        #expect(page.matchesServer(RosterViewSpec(sort: .name, offset: 3, limit: 3)))
    }

    @Test func aNameQueryNarrowsAnyFilter() throws {
        let crowd = try Crowd()
        let host = try crowd.harness.joinQuietly("u-host", name: "Danielle", role: .moderator)
        _ = host
        #expect(crowd.uids(RosterViewSpec(filter: .operators, query: "dan")) == ["u-host"])
        #expect(crowd.uids(RosterViewSpec(filter: .all, query: "dan")) == ["u-dana", "u-host"])
        crowd.harness.send(crowd.sessions["Dana"]!, ["type": "state", "room": "r", "audioMuted": true])
        #expect(crowd.uids(RosterViewSpec(filter: .muted, query: "da")) == ["u-dana"])
    }

    @Test func theLeftViewIsTheCallsAttendanceOfThoseWhoLeft() throws {
        let crowd = try Crowd()
        crowd.harness.send(crowd.sessions["Eve"]!, ["type": "leave", "room": "r"])
        crowd.harness.send(crowd.sessions["ann"]!, ["type": "leave", "room": "r"])
        let mirror = try RosterMirror(crowd.harness, view: ["filter": "left"])
        #expect(Set(mirror.participants.keys) == ["u-ann", "u-eve"])
        #expect(mirror.participants["u-eve"]?["state"] == "left")
        // Coming back takes Ann off the list of those who left.
        let ann = try crowd.harness.joinQuietly("u-ann", name: "ann")
        _ = ann
        try mirror.sync()
        #expect(Set(mirror.participants.keys) == ["u-eve"])
        #expect(mirror.matchesServer(RosterViewSpec(filter: .left)))
    }

    @Test func moderatorMutedAndRestrictedTellTheModeratorsMutesFromSelfMutes() throws {
        let crowd = try Crowd()
        let host = try crowd.harness.joinQuietly("u-host", role: .moderator)
        crowd.harness.send(crowd.sessions["bob"]!, ["type": "state", "room": "r", "audioMuted": true])
        crowd.harness.send(host, ["type": "action", "room": "r", "action": "mute", "target": "u-eve"])
        crowd.harness.send(host, ["type": "action", "room": "r", "action": "mute", "target": "u-gil", "hard": true])
        #expect(
            crowd.uids(RosterViewSpec(filter: .muted))
                == ["u-eve", "u-bob", "u-gil"].sorted { lhs, rhs in
                    Crowd.names.firstIndex { "u-\($0.lowercased())" == lhs }! < Crowd.names.firstIndex {
                        "u-\($0.lowercased())" == rhs
                    }!
                })
        #expect(crowd.uids(RosterViewSpec(filter: .moderatorMuted)) == ["u-eve", "u-gil"])
        #expect(crowd.uids(RosterViewSpec(filter: .restricted)) == ["u-gil"])
    }

    @Test func recentSpeakingPutsWhoSpokeLastFirst() throws {
        let crowd = try Crowd()
        for name in ["Fay", "bob", "Dana"] {
            crowd.harness.send(
                crowd.sessions[name]!, ["type": "speaker", "room": "r", "uid": .string("u-\(name.lowercased())")])
            crowd.harness.advance(milliseconds: 100)
        }
        #expect(crowd.uids(RosterViewSpec(sort: .recentSpeaking, limit: 4)) == ["u-dana", "u-bob", "u-fay", "u-hugo"])
    }

    @Test func pagingThroughTheMembersWhileTheRoomChurnsHasNoDuplicateAndNoOmission() throws {
        let crowd = try Crowd()
        let watcher = try crowd.harness.connect("o-page", rooms: ["r": .viewer])
        var seen: [String] = []
        var after: JSONValue?
        var at: JSONValue?
        var pages = 0
        var expected: [String] = []
        repeat {
            var query: [(String, JSONValue)] = [
                ("type", "query"), ("id", .int(Int64(pages))), ("query", "members"), ("room", "r"), ("limit", 3),
            ]
            if let after { query.append(("after", after)) }
            if let at { query.append(("at", at)) }
            let page = try #require(
                crowd.harness.request(watcher, .object(JSONObject(uniqueKeysWithValues: query))).first)
            if at == nil {
                at = page["seq"]
                expected = crowd.harness.gateway.roomState("r")!.listedParticipants.map(\.uid)
            }
            seen += page["uids"]?.arrayValue?.compactMap(\.stringValue) ?? []
            after = page["next"] == .null ? nil : page["next"]
            pages += 1
            // Between pages people leave and others join: the pages still read the roster at the first page's seq.
            crowd.harness.send(crowd.sessions[Crowd.names[pages]]!, ["type": "leave", "room": "r"])
            _ = try crowd.harness.joinQuietly("u-late-\(pages)")
        } while after != nil && pages < 10
        #expect(seen == expected)
        #expect(Set(seen).count == seen.count)
        #expect(pages == 3)
    }

    @Test func aPageAtASequenceNumberNoLongerRetainedIsRefused() throws {
        let harness = try RoomsNodeHarness { $0.history = HistoryRetention(maximumEntries: 2) }
        let ann = try harness.joinQuietly("u-ann")
        for index in 0..<6 { harness.send(ann, ["type": "state", "room": "r", "handRaised": .bool(index % 2 == 0)]) }
        let old = harness.request(
            ann, ["type": "query", "id": 1, "query": "members", "room": "r", "at": 1, "limit": 5])
        #expect(old.first?["code"] == "ERR_NOT_FOUND")
        let future = harness.request(
            ann, ["type": "query", "id": 2, "query": "members", "room": "r", "at": 999, "limit": 5])
        #expect(future.first?["code"] == "ERR_BAD_REQUEST")
    }
}

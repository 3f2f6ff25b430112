import Foundation
import HTTPCore
import JSONCoding
import RollcallServer
import Rooms
import Storage
import Testing

@testable import RollcallCLI

/// The operator endpoints over a live socket: probes, metrics and the server API.
@Suite("Operator HTTP endpoints", .serialized)
struct OperationsEndpointTests {
    @Test("/healthz is 200; /readyz is 200, then 503 once draining")
    func probes() throws {
        let harness = try OperationsHarness()
        defer { harness.stop() }
        #expect(try harness.http("GET", "/healthz", key: nil).status == 200)
        #expect(try harness.http("GET", "/readyz", key: nil).status == 200)
        harness.operations.beginDraining()
        let draining = try harness.http("GET", "/readyz", key: nil)
        #expect(draining.status == 503)
        #expect(draining.bodyText == "draining\n")
        #expect(try harness.http("POST", "/healthz", key: nil, body: "{}").status == 405)
    }

    @Test("/metrics is Prometheus text whose counters move with traffic")
    func metricsMove() throws {
        let harness = try OperationsHarness()
        defer { harness.stop() }
        let response = try harness.http("GET", "/metrics", key: nil)
        #expect(response.status == 200)
        #expect(
            response.headers.contains { $0.name == "Content-Type" && $0.value.hasPrefix("text/plain; version=0.0.4") })
        #expect(response.bodyText.contains("# TYPE rollcall_connections_total counter\n"))
        #expect(response.bodyText.contains("# TYPE rollcall_delivery_latency_seconds histogram\n"))
        let before = try harness.metrics()
        let alice = try harness.participant("alice", room: "standup", role: .moderator)
        let bob = try harness.participant("bob", room: "standup")
        try bob.send(
            .object(
                JSONObject(uniqueKeysWithValues: [
                    ("type", .string("state")), ("room", .string("standup")), ("handRaised", .bool(true)),
                ])))
        _ = try alice.next(type: "event")
        let after = try harness.metrics()
        func delta(_ name: String) -> Double { (after[name] ?? -1) - (before[name] ?? 0) }
        #expect(delta(#"rollcall_connections_total{transport="ws"}"#) >= 2)
        #expect(after[#"rollcall_connections_open{transport="ws"}"#]! >= 2)
        #expect(delta("rollcall_websocket_upgrades_total") == 2)
        #expect(delta("rollcall_messages_received_total") >= 3)
        #expect(delta("rollcall_messages_sent_total") >= 6)
        #expect(delta("rollcall_bytes_received_total") > 0)
        #expect(delta("rollcall_room_events_total") == 3)
        #expect(after["rollcall_rooms"] == 1)
        #expect(after["rollcall_subscribers"] == 2)
        #expect(delta("rollcall_patches_sent_total") >= 1)
        #expect(delta("rollcall_delivery_latency_seconds_count") >= 1)
        #expect(after[#"rollcall_loop_connections{loop="0"}"#]! >= 2)
        #expect(delta(#"rollcall_loop_iterations_total{loop="0"}"#) > 0)
    }

    @Test("a failed upgrade is counted under its status")
    func handshakeFailures() throws {
        let harness = try OperationsHarness()
        defer { harness.stop() }
        #expect(throws: (any Error).self) { try TestWebSocket(address: harness.address, path: "/nowhere") }
        let after = try harness.metrics()
        #expect(after[#"rollcall_handshakes_failed_total{reason="404"}"#] == 1)
    }

    @Test("the API refuses a missing or wrong key with 401 and is off without keys (404)")
    func authentication() throws {
        let harness = try OperationsHarness()
        defer { harness.stop() }
        let missing = try harness.http("GET", "/v1/api/rooms", key: nil)
        #expect(missing.status == 401)
        #expect(try harness.json(missing)["code"] == .string("ERR_UNAUTHORIZED"))
        #expect(try harness.http("GET", "/v1/api/rooms", key: "ops-test-secret-012345678X").status == 401)
        #expect(try harness.http("GET", "/v1/api/rooms", key: "ops-test-secret").status == 401)
        #expect(try harness.http("GET", "/v1/api/rooms").status == 200)

        let off = try OperationsHarness(apiKeys: [])
        defer { off.stop() }
        #expect(try off.http("GET", "/v1/api/rooms").status == 404)
    }

    @Test("unknown rooms and resources are 404, wrong methods 405, malformed bodies 400, large bodies 413")
    func refusals() throws {
        let harness = try OperationsHarness { $0.maximumHTTPBodySize = 256 }
        defer { harness.stop() }
        let unknown = try harness.http("GET", "/v1/api/rooms/nope")
        #expect(unknown.status == 404)
        #expect(try harness.json(unknown)["code"] == .string("ERR_NOT_FOUND"))
        #expect(try harness.http("POST", "/v1/api/rooms/nope/actions", body: #"{"action":"mute_all"}"#).status == 404)
        #expect(try harness.http("GET", "/v1/api/teapots").status == 404)
        #expect(try harness.http("POST", "/v1/api/rooms", body: "{}").status == 405)
        let malformed = try harness.http("POST", "/v1/api/rooms/standup/meeting", body: #"{"sessionId": "#)
        #expect(malformed.status == 400)
        #expect(try harness.json(malformed)["code"] == .string("ERR_BAD_REQUEST"))
        let invalid = try harness.http("POST", "/v1/api/rooms/standup/meeting", body: #"{"sessionId":"s","colour":1}"#)
        #expect(invalid.status == 400)
        #expect(try harness.http("POST", "/v1/api/rooms/standup/meeting").status == 400)
        let large = try harness.http(
            "POST", "/v1/api/rooms/standup/meeting",
            body: #"{"sessionId":"s","text":""# + String(repeating: "x", count: 300) + #""}"#)
        #expect(large.status == 413)
    }

    @Test("HEAD answers like GET without a body: the client's files, /healthz and /metrics")
    func headAnswersLikeGet() throws {
        let harness = try OperationsHarness(extraRoutes: [WebClientRoutes.client])
        defer { harness.stop() }
        for path in ["/client/rollcall.js", "/healthz", "/metrics"] {
            let get = try harness.http("GET", path, key: nil)
            let head = try harness.http("HEAD", path, key: nil)
            #expect(get.status == 200, "\(path)")
            #expect(head.status == 200, "\(path)")
            #expect(head.body.isEmpty, "\(path)")
            let length = { (response: BlockingHTTPClient.Response) in
                response.headers.first { $0.name.lowercased() == "content-length" }?.value
            }
            if path != "/metrics" {  // the metrics move between two scrapes
                #expect(length(head) == length(get), "\(path)")
                #expect(
                    head.headers.first { $0.name == "ETag" }?.value == get.headers.first { $0.name == "ETag" }?.value)
            }
            #expect(length(head) != nil, "\(path)")
        }
        let unknown = try harness.http("HEAD", "/client/nope.js", key: nil)
        #expect(unknown.status == 404)
        #expect(unknown.body.isEmpty)
        let refused = try harness.http("DELETE", "/client/rollcall.js", key: nil)
        #expect(refused.status == 405)
        #expect(refused.headers.first { $0.name == "Allow" }?.value == "GET, HEAD")
    }

    @Test("an API error answers the HTTP status of its code: 413 for metadata past its limits, not 409")
    func errorStatusOfItsCode() throws {
        let harness = try OperationsHarness()
        defer { harness.stop() }
        _ = try harness.participant("alice", room: "standup")
        let keys = (0..<33).map { #""k\#($0)":"v""# }.joined(separator: ",")
        let tooMany = try harness.http(
            "POST", "/v1/api/rooms/standup/events", body: #"{"type":"metadata","metadata":{"# + keys + "}}")
        #expect(try harness.json(tooMany)["code"] == .string("ERR_TOO_LARGE"))
        #expect(tooMany.status == 413)
    }

    @Test("a meeting message from the API reaches a WebSocket subscriber with the next sequence number")
    func publishedMeetingMessage() throws {
        let harness = try OperationsHarness()
        defer { harness.stop() }
        let alice = try harness.participant("alice", room: "standup")
        let rooms = try harness.json(try harness.http("GET", "/v1/api/rooms"))
        guard case .array(let list)? = rooms["rooms"], case .object(let room)? = list.first,
            case .int(let sequence)? = room["seq"]
        else {
            Issue.record("no room in \(rooms)")
            return
        }
        let response = try harness.http(
            "POST", "/v1/api/rooms/standup/meeting",
            body: #"{"sessionId":"call-1","text":"starting now"}"#)
        #expect(response.status == 200)
        #expect(try harness.json(response)["seq"] == .int(sequence + 1))
        let event = try alice.next(type: "event")
        #expect(event["event"] == .string("meeting.message"))
        #expect(event["seq"] == .int(sequence + 1))
        #expect(event["actor"] == .string("api:ops"))
        let state = try harness.json(try harness.http("GET", "/v1/api/rooms/standup"))
        #expect(state["seq"] == .int(sequence + 1))
        guard case .object(let roomState)? = state["state"], case .object(let meeting)? = roomState["activeMeeting"]
        else {
            Issue.record("no active meeting in \(state)")
            return
        }
        #expect(meeting["text"] == .string("starting now"))
        #expect(meeting["sender"] == .string("api:ops"))
    }

    @Test("moderator actions and events from the API go through the room's log, with the key as the actor")
    func moderationAndEvents() throws {
        let harness = try OperationsHarness()
        defer { harness.stop() }
        let alice = try harness.participant("alice", room: "standup")
        let bob = try harness.participant("bob", room: "standup")
        _ = try alice.next(type: "event")
        let muted = try harness.http(
            "POST", "/v1/api/rooms/standup/actions",
            body: #"{"action":"mute","target":"bob","reason":"noise"}"#)
        #expect(muted.status == 200)
        #expect(try harness.json(muted)["changed"] == .bool(true))
        let event = try alice.next(type: "event")
        #expect(event["event"] == .string("moderation.muted"))
        #expect(event["actor"] == .string("api:ops"))
        let recording = try harness.http(
            "POST", "/v1/api/rooms/standup/events", body: #"{"type":"media","recording":true}"#)
        #expect(recording.status == 200)
        #expect(try alice.next(type: "event")["actor"] == .string("api:ops"))
        let absent = try harness.http(
            "POST", "/v1/api/rooms/standup/actions", body: #"{"action":"mute","target":"zed"}"#)
        #expect(absent.status == 404)
        let removed = try harness.http(
            "POST", "/v1/api/rooms/standup/actions", body: #"{"action":"remove","target":"bob"}"#)
        #expect(removed.status == 200)
        #expect(try bob.closeCode() == 4003)
    }

    @Test("disconnecting a user closes their connections with 4009")
    func disconnect() throws {
        let harness = try OperationsHarness()
        defer { harness.stop() }
        let bob = try harness.participant("bob", room: "standup")
        let response = try harness.http("POST", "/v1/api/users/bob/disconnect", body: #"{"reason":"maintenance"}"#)
        #expect(response.status == 200)
        #expect(try harness.json(response)["disconnected"] == .int(1))
        #expect(try bob.closeCode() == 4009)
        #expect(try harness.http("POST", "/v1/api/users/bob/disconnect", body: #"{"why":1}"#).status == 400)
    }

    @Test("ctl builds the API request for each command and refuses wrong arguments")
    func ctlRequests() {
        guard
            case .success(let meeting) = CtlCommand.request(
                ["meeting", "a b"], options: ["--session-id": "s1", "--text": "hi"], flags: ["--inactive"]
            )
        else {
            Issue.record("meeting refused")
            return
        }
        #expect(meeting.method == "POST" && meeting.path == "/v1/api/rooms/a%20b/meeting")
        // A room id is one path segment whatever it holds, read back as it was by the API (`+` is itself there).
        for room in ["team/7", "a+b", "café", "100%"] {
            guard case .success(let read) = CtlCommand.request(["room", room], options: [:], flags: []) else {
                Issue.record("room \(room) refused")
                continue
            }
            let segment = read.path.dropFirst("/v1/api/rooms/".count)
            #expect(!segment.contains("/") && !segment.contains("+"), "\(room)")
            #expect(PercentEncoding.decode(segment, plus: .literal) == room)
        }
        #expect(meeting.body.map(JSONWriter.string) == #"{"sessionId":"s1","active":false,"text":"hi"}"#)
        guard
            case .success(let action) = CtlCommand.request(
                ["action", "r", "mute"], options: ["--target": "bob"], flags: [])
        else {
            Issue.record("action refused")
            return
        }
        #expect(action.body.map(JSONWriter.string) == #"{"action":"mute","target":"bob"}"#)
        if case .success = CtlCommand.request(["meeting", "r"], options: [:], flags: []) {
            Issue.record("a meeting without --session-id was accepted")
        }
        if case .success = CtlCommand.request(["event", "r"], options: ["--recording": "maybe"], flags: []) {
            Issue.record("--recording maybe was accepted")
        }
        if case .success = CtlCommand.request(["rooms", "extra"], options: [:], flags: []) {
            Issue.record("rooms with an argument was accepted")
        }
        guard
            case .success(let attributes) = CtlCommand.request(
                ["attributes", "r", "bob", "title=CTO", "team"], options: [:], flags: [])
        else {
            Issue.record("attributes refused")
            return
        }
        #expect(attributes.path == "/v1/api/rooms/r/events")
        #expect(
            attributes.body.map(JSONWriter.string)
                == #"{"type":"attributes","uid":"bob","attributes":{"title":"CTO","team":null}}"#)
        guard case .success(let metadata) = CtlCommand.request(["metadata", "r", "topic=Q3"], options: [:], flags: [])
        else {
            Issue.record("metadata refused")
            return
        }
        #expect(metadata.body.map(JSONWriter.string) == #"{"type":"metadata","metadata":{"topic":"Q3"}}"#)
        if case .success = CtlCommand.request(["attributes", "r", "bob"], options: [:], flags: []) {
            Issue.record("attributes without a change was accepted")
        }
        guard
            case .success(let permissions) = CtlCommand.request(
                ["permissions", "r", "bob", "share=false", "hidden=true"], options: [:], flags: [])
        else {
            Issue.record("permissions refused")
            return
        }
        #expect(
            permissions.body.map(JSONWriter.string)
                == #"{"type":"permissions","uid":"bob","permissions":{"share":false,"hidden":true}}"#)
        if case .success = CtlCommand.request(["permissions", "r", "bob", "share=maybe"], options: [:], flags: []) {
            Issue.record("a permission that is not true or false was accepted")
        }
        guard
            case .success(let hard) = CtlCommand.request(
                ["action", "r", "mute"], options: ["--target": "bob", "--duration-ms": "60000"], flags: ["--hard"])
        else {
            Issue.record("a hard mute refused")
            return
        }
        #expect(
            hard.body.map(JSONWriter.string) == #"{"action":"mute","target":"bob","hard":true,"durationMs":60000}"#)
    }

    @Test("log lines are logfmt and quote what needs quoting")
    func logLines() {
        #expect(
            Log.line("info", "listening", [("addresses", "ws://127.0.0.1:8080")])
                == "level=info msg=listening addresses=ws://127.0.0.1:8080\n")
        #expect(
            Log.line("warn", "api authentication failed", [("path", "a b"), ("x", "q\"")])
                == "level=warn msg=\"api authentication failed\" path=\"a b\" x=\"q\\\"\"\n")
    }

    @Test(
        "with two rooms threads the API lists, reads and changes rooms of both, and /metrics adds them up",
        arguments: [false, true])
    func apiAcrossRoomThreads(stored: Bool) throws {
        let path = NSTemporaryDirectory() + "rollcall-api-threads-\(UUID().uuidString).db"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = stored ? try SQLiteRoomStore(configuration: StorageConfiguration(path: path)) : nil
        let harness = try OperationsHarness(threads: 2, store: store)
        defer { harness.stop() }
        let placement = RoomThreadPlacement(count: 2)
        let rooms = (0...).lazy.map { "room-\($0)" }
        let first = rooms.first { placement.roomThread(ofRoom: $0) == 0 }!
        let second = rooms.first { placement.roomThread(ofRoom: $0) == 1 }!
        let alice = try harness.participant("alice", room: first)
        let bob = try harness.participant("bob", room: second)
        let listed = try harness.json(try harness.http("GET", "/v1/api/rooms"))
        guard case .array(let list)? = listed["rooms"] else {
            Issue.record("no rooms in \(listed)")
            return
        }
        #expect(list.map { $0["room"] } == [first, second].sorted().map { .string($0) })
        #expect(try harness.json(try harness.http("GET", "/v1/api/rooms?limit=1"))["next"] != .null)
        for (room, socket) in [(first, alice), (second, bob)] {
            let published = try harness.http(
                "POST", "/v1/api/rooms/\(room)/meeting", body: #"{"sessionId":"call-1","text":"now"}"#)
            #expect(published.status == 200)
            #expect(try socket.next(type: "event")["event"] == .string("meeting.message"))
            #expect(try harness.json(try harness.http("GET", "/v1/api/rooms/\(room)"))["room"] == .string(room))
        }
        let muted = try harness.http(
            "POST", "/v1/api/rooms/\(second)/actions", body: #"{"action":"mute","target":"bob"}"#)
        #expect(muted.status == 200)
        let audit = try harness.json(try harness.http("GET", "/v1/api/audit"))
        guard case .array(let actions)? = audit["actions"] else {
            Issue.record("no actions in \(audit)")
            return
        }
        #expect(actions.map { $0["room"] } == [.string(second)])
        let samples = try harness.metrics()
        #expect(samples["rollcall_rooms"] == 2)
        #expect(samples["rollcall_sessions"] == 2)
        #expect(samples["rollcall_subscribers"] == 2)
        let events = (0..<2).map { roomThread in
            harness.runtime.inspect(roomThread: roomThread) { $0.statistics.events }
        }
        #expect(events.allSatisfy { $0 > 0 })
        #expect(samples["rollcall_room_events_total"] == Double(events.reduce(0, +)))
        if stored {
            // Both threads' connections to the store, added up: every event of both rooms is committed.
            #expect(samples["rollcall_store_entries_written_total"] == Double(events.reduce(0, +)))
            #expect(samples["rollcall_store_available"] == 1)
        }
        let response = try harness.http("POST", "/v1/api/users/bob/disconnect", body: "{}")
        #expect(try harness.json(response)["disconnected"] == .int(1))
        #expect(try bob.closeCode() == 4009)
    }
}

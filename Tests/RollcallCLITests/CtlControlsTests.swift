import Foundation
import HTTPCore
import JSONCoding
import Testing

@testable import RollcallCLI

/// `rollcall ctl lock`, `unlock` and `--if-seq`, and the server API answering them on a live gateway.
@Suite("ctl and the server API: the lock and version-checked writes")
struct CtlControlsTests {
    func built(
        _ positional: [String], _ options: [String: String] = [:], flags: Set<String> = []
    ) -> (path: String, body: String)? {
        guard case .success(let request) = CtlCommand.request(positional, options: options, flags: flags) else {
            return nil
        }
        return (request.path, request.body.map(JSONWriter.string) ?? "")
    }

    @Test("ctl builds lock, unlock and version-checked writes, and refuses --if-seq elsewhere")
    func ctlRequests() {
        #expect(built(["lock", "r"])?.path == "/v1/api/rooms/r/actions")
        #expect(built(["lock", "r"], ["--reason": "starting"])?.body == #"{"action":"lock","reason":"starting"}"#)
        #expect(built(["unlock", "r"])?.body == #"{"action":"unlock"}"#)
        #expect(built(["lock"]) == nil)
        #expect(
            built(["metadata", "r", "topic=Q4"], ["--if-seq": "14"])?.body
                == #"{"type":"metadata","metadata":{"topic":"Q4"},"ifSeq":14}"#)
        #expect(
            built(["attributes", "r", "bob", "title=CTO"], ["--if-seq": "0"])?.body
                == #"{"type":"attributes","uid":"bob","attributes":{"title":"CTO"},"ifSeq":0}"#)
        #expect(
            built(["permissions", "r", "bob", "share=false"], ["--if-seq": "3"])?.body
                == #"{"type":"permissions","uid":"bob","permissions":{"share":false},"ifSeq":3}"#)
        #expect(built(["metadata", "r", "topic=Q4"], ["--if-seq": "-1"]) == nil)
        #expect(built(["metadata", "r", "topic=Q4"], ["--if-seq": "soon"]) == nil)
        #expect(built(["lock", "r"], ["--if-seq": "3"]) == nil)
        #expect(built(["action", "r", "floor"], ["--limit": "2"])?.body == #"{"action":"floor","limit":2}"#)
        #expect(built(["action", "r", "lock"], ["--limit": "2"]) == nil)
        #expect(
            built(["action", "r", "floor"], ["--limit": "2"], flags: ["--queue"])?.body
                == #"{"action":"floor","limit":2,"queue":true}"#)
        #expect(built(["action", "r", "lock"], flags: ["--queue"]) == nil)
    }

    @Test("the server API locks a room, and answers a stale version with 409 ERR_CONFLICT")
    func serverAPI() throws {
        let harness = try OperationsHarness()
        defer { harness.stop() }
        // Alice is in the call for the whole test, so the room exists.
        let alice = try harness.participant("alice", room: "standup")
        defer { _ = alice }
        let locked = try harness.http("POST", "/v1/api/rooms/standup/actions", body: #"{"action":"lock"}"#)
        #expect(locked.status == 200)
        #expect(try harness.json(locked)["changed"] == true)
        let room = try harness.json(try harness.http("GET", "/v1/api/rooms/standup"))
        #expect(room["state"]?["locked"] == true)
        let seen = try #require(room["seq"]?.intValue)
        let first = try harness.http(
            "POST", "/v1/api/rooms/standup/events", body: #"{"type":"metadata","metadata":{"a":"1"},"ifSeq":\#(seen)}"#)
        #expect(first.status == 200)
        let stale = try harness.http(
            "POST", "/v1/api/rooms/standup/events", body: #"{"type":"metadata","metadata":{"a":"2"},"ifSeq":\#(seen)}"#)
        #expect(stale.status == 409)
        #expect(try harness.json(stale)["code"] == "ERR_CONFLICT")
        let after = try harness.json(try harness.http("GET", "/v1/api/rooms/standup"))
        #expect(after["state"]?["metadata"] == ["a": "1"])
        let unlocked = try harness.http("POST", "/v1/api/rooms/standup/actions", body: #"{"action":"unlock"}"#)
        #expect(try harness.json(unlocked)["changed"] == true)
    }

    @Test("ctl builds the attendance request, and the server API answers it for a live room and 404 for none")
    func attendance() throws {
        #expect(built(["attendance", "r"])?.path == "/v1/api/rooms/r/attendance")
        #expect(
            built(["attendance", "r"], ["--after": "4", "--limit": "20"])?.path
                == "/v1/api/rooms/r/attendance?after=4&limit=20")
        #expect(built(["attendance"]) == nil)

        let harness = try OperationsHarness()
        defer { harness.stop() }
        let alice = try harness.participant("alice", room: "standup")
        defer { _ = alice }
        let page = try harness.json(try harness.http("GET", "/v1/api/rooms/standup/attendance?limit=10"))
        #expect(page["participants"]?.arrayValue?.compactMap { $0["uid"]?.stringValue } == ["alice"])
        #expect(page["participants"]?[0]?["lastLeftAt"] == .null)
        #expect(page["next"] == .null)
        #expect(try harness.http("GET", "/v1/api/rooms/nobody-here/attendance").status == 404)
        #expect(try harness.http("GET", "/v1/api/rooms/standup/attendance?limit=0").status == 400)
    }

    @Test("ctl builds the waiting request, and the server API turns the waiting room on, lists and admits who waits")
    func waitingRoom() throws {
        #expect(built(["waiting", "r"])?.path == "/v1/api/rooms/r/waiting")
        #expect(
            built(["waiting", "r"], ["--after": "2", "--limit": "5"])?.path == "/v1/api/rooms/r/waiting?after=2&limit=5"
        )
        #expect(built(["waiting"]) == nil)

        let harness = try OperationsHarness()
        defer { harness.stop() }
        let alice = try harness.participant("alice", room: "webinar", role: .moderator)
        defer { _ = alice }
        let on = try harness.http("POST", "/v1/api/rooms/webinar/actions", body: #"{"action":"require_admission"}"#)
        #expect(try harness.json(on)["changed"] == true)
        let carol = try TestWebSocket(
            address: harness.address, path: "/v1/ws?token=\(try harness.token("carol", room: "webinar"))")
        _ = try carol.next(type: "welcome")
        try carol.send(["type": "join", "id": "j", "room": "webinar"])
        #expect(try carol.next(type: "waiting")["position"] == 1)
        let page = try harness.json(try harness.http("GET", "/v1/api/rooms/webinar/waiting?limit=10"))
        #expect(page["waiting"]?.arrayValue?.compactMap { $0["uid"]?.stringValue } == ["carol"])
        #expect(page["admissionRequired"] == true)
        #expect(page["next"] == .null)
        let admit = try harness.http(
            "POST", "/v1/api/rooms/webinar/actions", body: #"{"action":"admit","target":"carol"}"#)
        #expect(try harness.json(admit)["changed"] == true)
        #expect(try carol.next(type: "ack")["id"] == "j")
        _ = try carol.next(type: "snapshot")
        let missing = try harness.http(
            "POST", "/v1/api/rooms/webinar/actions", body: #"{"action":"deny","target":"carol"}"#)
        #expect(missing.status == 404)
        #expect(try harness.http("GET", "/v1/api/rooms/nobody-here/waiting").status == 404)
    }
}

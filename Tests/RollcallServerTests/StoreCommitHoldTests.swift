import Foundation
import Glibc
import JSONCoding
import Rooms
import Testing

@testable import RollcallServer
@testable import Storage

/// A store that stops taking writes, as a full disk does, under a live gateway: nothing that reports a change leaves
/// before the change is committed.
@Suite("Acknowledgements while the store cannot commit, over live sockets", .serialized)
struct StoreCommitHoldTests {
    /// Runs SQL on the gateway's store connection, on the gateway's thread.
    static func onStore(_ live: LiveRooms, _ sql: String) {
        live.runtime.inspect { gateway in
            do {
                try (gateway.store as? SQLiteRoomStore)?.database.execute(sql)
            } catch {
                Issue.record("\(sql): \(error)")
            }
        }
    }

    /// The entries committed to the file, read through a connection of their own.
    static func committedSequences(_ path: String) throws -> [UInt64] {
        try SQLiteWebhookLog(path: path).items(after: 0, limit: 1000).map(\.sequence)
    }

    static func message(_ fields: [(String, JSONValue)], id: Int64) -> JSONValue {
        .object(JSONObject(uniqueKeysWithValues: fields + [("id", .int(id))]))
    }

    @Test("A change waits for its commit; pongs and refusals go ahead; the rest follows once the store commits again")
    func outputWaitsForTheCommit() throws {
        let path = NSTemporaryDirectory() + "rollcall-hold-\(UUID().uuidString).db"
        defer { StoreCommitTests.remove(path) }
        let store = try SQLiteRoomStore(configuration: StorageConfiguration(path: path))
        try LiveRooms.with(store: store) { live in
            let alice = try live.client(live.token("alice", groups: ["r"]))
            let bob = try live.client(live.token("bob", groups: ["r"]))
            #expect(try alice.join("r")["type"]?.stringValue == "ack")
            #expect(try bob.join("r")["type"]?.stringValue == "ack")
            #expect(alice.ping() && bob.ping())  // both have everything sent so far
            let committed = live.runtime.inspect { $0.roomState("r")?.sequence ?? 0 }
            #expect(try Self.committedSequences(path).last == committed)

            Self.onStore(live, "PRAGMA query_only = 1")
            try alice.send(Self.message([("type", "state"), ("room", "r"), ("handRaised", true)], id: 100))
            for _ in 0..<5000 where live.runtime.isStoreCommitting { usleep(1000) }
            #expect(!live.runtime.isStoreCommitting)
            // Applied in memory, not in the file, and not reported to anyone: the next message each client gets
            // is the answer to its ping, and then the refusal of a new request.
            #expect(live.runtime.inspect { $0.roomState("r")?.sequence } == committed + 1)
            #expect(try Self.committedSequences(path).last == committed)
            try alice.send(Self.message([("type", "ping")], id: 101))
            let pong = try alice.next()
            #expect(pong["id"] == .int(101) && pong["type"] == "pong")
            try alice.send(Self.message([("type", "state"), ("room", "r"), ("audioMuted", true)], id: 102))
            let refused = try alice.next()
            #expect(refused["id"] == .int(102) && refused["code"] == "ERR_UNAVAILABLE")
            try bob.send(Self.message([("type", "ping")], id: 200))
            let bobsPong = try bob.next()
            #expect(bobsPong["id"] == .int(200) && bobsPong["type"] == "pong")
            #expect(live.runtime.inspect { $0.statistics.storeRefusals } == 1)

            Self.onStore(live, "PRAGMA query_only = 0")
            let ack = try alice.answer(to: 100)
            #expect(ack["type"] == "ack" && ack["seq"] == .int(Int64(committed + 1)))
            #expect(live.runtime.isStoreCommitting)
            #expect(try Self.committedSequences(path).last == committed + 1)
            var event: JSONObject?
            for _ in 0..<100 where event == nil {
                let message = try bob.next()
                if message["type"] == "event" { event = message }
            }
            #expect(event?["seq"] == .int(Int64(committed + 1)))
            #expect(live.runtime.inspect { $0.roomState("r")?.participants["alice"]?.audioMuted } == false)
        }
    }
}

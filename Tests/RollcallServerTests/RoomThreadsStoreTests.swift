import ClusterTesting
import EventIO
import Foundation
import Glibc
import HTTPClient
import JSONCoding
import Rooms
import Testing
import Webhooks

@testable import RollcallServer
@testable import Storage

/// Two rooms threads with the store and webhooks: each thread commits its rooms through its own connection to the
/// file, acknowledgements wait for their thread's commit, and the deliveries see every thread's entries.
@Suite("Two rooms threads with the store and webhooks", .serialized)
struct RoomThreadsStoreTests {
    static func temporaryPath() -> String {
        NSTemporaryDirectory() + "rollcall-threads-\(UUID().uuidString).db"
    }

    /// The committed entries of each room, read from the file through a connection of their own, in commit order.
    static func committed(_ path: String) throws -> [String: [UInt64]] {
        var rooms: [String: [UInt64]] = [:]
        for item in try SQLiteWebhookLog(path: path).items(after: 0, limit: 100_000) {
            rooms[item.room, default: []].append(item.sequence)
        }
        return rooms
    }

    /// Runs SQL on one rooms thread's connection to the store, on that thread.
    static func onStore(_ live: LiveRooms, roomThread: Int, _ sql: String) {
        live.runtime.inspect(roomThread: roomThread) { gateway in
            do {
                try (gateway.store as? SQLiteRoomStore)?.database.execute(sql)
            } catch {
                Issue.record("\(sql): \(error)")
            }
        }
    }

    static func state(_ room: String, raised: Bool, id: Int64) -> JSONValue {
        .object(
            JSONObject(uniqueKeysWithValues: [
                ("type", "state"), ("room", .string(room)), ("handRaised", .bool(raised)), ("id", .int(id)),
            ]))
    }

    @Test("Every acknowledged change is in the file, each room committed by its own thread's connection")
    func acknowledgedWritesAreInTheFile() throws {
        let (first, second) = RoomThreadsTests.roomsOnBothThreads()
        let path = Self.temporaryPath()
        defer { StoreCommitTests.remove(path) }
        let store = try SQLiteRoomStore(configuration: StorageConfiguration(path: path))
        try LiveRooms.with(server: { $0.eventLoopCount = 2 }, threads: 2, store: store) { live in
            let alice = try live.client(live.token("alice", groups: [first, second]))
            for room in [first, second] { #expect(try alice.join(room)["type"]?.stringValue == "ack") }
            var acknowledged: [String: UInt64] = [:]
            for round in 0..<20 {
                for room in [first, second] {
                    let ack = try alice.request([
                        ("type", "state"), ("room", .string(room)), ("handRaised", .bool(round % 2 == 0)),
                    ])
                    #expect(ack["type"] == "ack")
                    acknowledged[room] = UInt64(ack["seq"]?.intValue ?? 0)
                    // Once acknowledged, the change is in the file: no entry waits for a later commit.
                    let inFile = try Self.committed(path)[room] ?? []
                    #expect(inFile.last == acknowledged[room])
                    #expect(inFile == Array(1...(acknowledged[room] ?? 1)))
                }
            }
            // Each thread committed its own rooms through a connection of its own.
            let stores = (0..<2).map { index in
                live.runtime.inspect(roomThread: index) { gateway -> (ObjectIdentifier?, Int) in
                    let store = gateway.store as? SQLiteRoomStore
                    return (store.map(ObjectIdentifier.init), store?.statistics.entriesWritten ?? 0)
                }
            }
            #expect(stores[0].0 != nil && stores[1].0 != nil && stores[0].0 != stores[1].0)
            #expect(stores[0].1 == Int(acknowledged[first] ?? 0))
            #expect(stores[1].1 == Int(acknowledged[second] ?? 0))
            #expect(live.runtime.inspect(roomThread: 0) { $0.roomIDs } == [first])
            #expect(live.runtime.inspect(roomThread: 1) { $0.roomIDs } == [second])
        }
    }

    @Test("After a restart each stored room comes back on its own thread, listed once")
    func restoredRoomsGoBackToTheirThreads() throws {
        let (first, second) = RoomThreadsTests.roomsOnBothThreads()
        let path = Self.temporaryPath()
        defer { StoreCommitTests.remove(path) }
        var before: [String: UInt64] = [:]
        try LiveRooms.with(threads: 2, store: try SQLiteRoomStore(configuration: StorageConfiguration(path: path))) {
            live in
            let alice = try live.client(live.token("alice", groups: [first, second]))
            for room in [first, second] {
                #expect(try alice.join(room)["type"]?.stringValue == "ack")
                let ack = try alice.request([("type", "state"), ("room", .string(room)), ("audioMuted", true)])
                before[room] = UInt64(ack["seq"]?.intValue ?? 0)
            }
        }
        let reopened = try SQLiteRoomStore(configuration: StorageConfiguration(path: path))
        try LiveRooms.with(threads: 2, store: reopened) { live in
            // Every thread lists the rooms it owns, from the same file: together each room once.
            let listed = (0..<2).map { index in
                live.runtime.inspect(roomThread: index) { gateway in
                    ((try? gateway.apiRooms(after: nil, limit: 10))?.entries ?? []).map(\.room)
                }
            }
            #expect(listed[0] == [first])
            #expect(listed[1] == [second])
            let bob = try live.client(live.token("bob", groups: [first, second]))
            for room in [first, second] {
                let ack = try bob.join(room)
                #expect(ack["type"] == "ack")
                #expect(UInt64(ack["seq"]?.intValue ?? 0) > before[room] ?? 0)
            }
            #expect(live.runtime.inspect(roomThread: 0) { $0.roomState(second) == nil })
            #expect(live.runtime.inspect(roomThread: 1) { $0.roomState(first) == nil })
        }
    }

    @Test("A store that cannot commit on one thread holds that thread's rooms only")
    func aFailingThreadHoldsOnlyItsRooms() throws {
        let (first, second) = RoomThreadsTests.roomsOnBothThreads()
        let path = Self.temporaryPath()
        defer { StoreCommitTests.remove(path) }
        let store = try SQLiteRoomStore(configuration: StorageConfiguration(path: path))
        try LiveRooms.with(threads: 2, store: store) { live in
            let alice = try live.client(live.token("alice", groups: [first]))
            let bob = try live.client(live.token("bob", groups: [second]))
            #expect(try alice.join(first)["type"]?.stringValue == "ack")
            #expect(try bob.join(second)["type"]?.stringValue == "ack")
            let committed = live.runtime.inspect(roomThread: 1) { $0.roomState(second)?.sequence ?? 0 }

            Self.onStore(live, roomThread: 1, "PRAGMA query_only = 1")
            try bob.send(Self.state(second, raised: true, id: 100))
            for _ in 0..<5000 where live.runtime.isStoreCommitting { usleep(1000) }
            #expect(!live.runtime.isStoreCommitting)
            #expect(try Self.committed(path)[second]?.last == committed)
            // The other thread's rooms go on: acknowledged, and in the file.
            let ack = try alice.request([("type", "state"), ("room", .string(first)), ("handRaised", true)])
            #expect(ack["type"] == "ack")
            #expect(try Self.committed(path)[first]?.last == UInt64(ack["seq"]?.intValue ?? 0))
            // The failing thread's rooms refuse requests until their store commits again.
            let refused = try bob.request([("type", "state"), ("room", .string(second)), ("audioMuted", true)])
            #expect(refused["code"] == "ERR_UNAVAILABLE")
            #expect(live.runtime.inspect(roomThread: 1) { $0.statistics.storeRefusals } == 1)
            #expect(live.runtime.inspect(roomThread: 0) { $0.statistics.storeRefusals } == 0)

            Self.onStore(live, roomThread: 1, "PRAGMA query_only = 0")
            let held = try bob.answer(to: 100)
            #expect(held["type"] == "ack" && held["seq"] == .int(Int64(committed + 1)))
            #expect(live.runtime.isStoreCommitting)
            #expect(try Self.committed(path)[second]?.last == committed + 1)
        }
    }

    @Test("Webhooks get every entry of rooms on both threads, in order per room, told of each commit")
    func webhooksGetEveryEntryInOrder() throws {
        let path = Self.temporaryPath()
        defer { StoreCommitTests.remove(path) }
        let store = try SQLiteRoomStore(configuration: StorageConfiguration(path: path))
        let receiver = try WebhookReceiver { _ in .answer(200) }
        defer { receiver.close() }
        let endpoint = WebhookEndpoint(
            name: "crm", url: try HTTPURL("http://127.0.0.1:\(receiver.port)/hooks"),
            secret: Array("0123456789abcdef".utf8))
        let configuration = WebhookConfiguration(endpoints: [endpoint], maximumBatch: 7)
        // An idle wait of an hour: only the news of each commit can make the deliveries read.
        let dispatcher = try WebhookDispatcher(configuration: configuration) {
            [position = store.committedPosition] loop in
            SQLiteWebhookFeed(path: path, committedPosition: { position.current }, idleWaitMilliseconds: 3_600_000) {
                loop.execute($0)
            }
        }
        let rooms = (0..<8).map { "hooked-\($0)" }
        let placement = RoomThreadPlacement(count: 2)
        #expect(Set(rooms.map(placement.roomThread(ofRoom:))) == [0, 1])
        try LiveRooms.with(server: { $0.eventLoopCount = 2 }, threads: 2, store: store, webhooks: dispatcher) { live in
            let clients = try (0..<2).map { index in try live.client(live.token("user-\(index)", groups: rooms)) }
            for room in rooms {
                for client in clients { #expect(try client.join(room)["type"]?.stringValue == "ack") }
            }
            for round in 0..<15 {
                for (index, room) in rooms.enumerated() {
                    let ack = try clients[index % 2].request([
                        ("type", "state"), ("room", .string(room)), ("handRaised", .bool(round % 2 == 0)),
                    ])
                    #expect(ack["type"] == "ack")
                }
            }
            // Every change is acknowledged, so committed: the file holds the whole log.
            let inFile = try Self.committed(path)
            let total = inFile.values.reduce(0) { $0 + $1.count }
            #expect(waitUntil(seconds: 20) { receiver.events.count >= total })
            var delivered: [String: [UInt64]] = [:]
            for event in receiver.events {
                let parts = event.split(separator: "#")
                delivered[String(parts[0]), default: []].append(UInt64(parts[1]) ?? 0)
            }
            #expect(delivered == inFile)
            for room in rooms { #expect(delivered[room] == Array(1...UInt64(delivered[room]?.count ?? 1))) }
        }
    }

    @Test("The deliveries read at once when told of new entries, whatever their idle wait")
    func newsWakesTheDeliveries() throws {
        let path = Self.temporaryPath()
        defer { StoreCommitTests.remove(path) }
        let store = try SQLiteRoomStore(configuration: StorageConfiguration(path: path))
        let receiver = try WebhookReceiver { _ in .answer(200) }
        defer { receiver.close() }
        let endpoint = WebhookEndpoint(
            name: "crm", url: try HTTPURL("http://127.0.0.1:\(receiver.port)/hooks"),
            secret: Array("0123456789abcdef".utf8))
        let dispatcher = try WebhookDispatcher(configuration: WebhookConfiguration(endpoints: [endpoint])) {
            [position = store.committedPosition] loop in
            SQLiteWebhookFeed(path: path, committedPosition: { position.current }, idleWaitMilliseconds: 3_600_000) {
                loop.execute($0)
            }
        }
        try dispatcher.start()
        defer { dispatcher.stop() }
        for sequence in 1...3 {
            store.append(
                StoredLogEntry(
                    entry: RoomLogEntry(
                        sequence: UInt64(sequence), time: 1, actor: "u", reason: nil, event: .sessionEnded),
                    eventName: "session.ended", message: Array(#"{"room":"r","seq":\#(sequence)}"#.utf8)),
                room: "r")
            try store.commit()
            dispatcher.tellOfNewEntries()
            #expect(waitUntil(seconds: 20) { receiver.events.count == sequence })
        }
        #expect(receiver.events == ["r#1", "r#2", "r#3"])
    }
}

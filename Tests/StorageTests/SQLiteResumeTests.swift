import Foundation
import JSONCoding
import RoomsTesting
import Storage
import Testing
import TokenAuth

@testable import Rooms

/// A resume after a restart reads back into the SQLite store what the restarted gateway does not hold in memory:
/// the newest checkpoint at or before the client's roster and the entries after it.
@Suite struct SQLiteResumeTests {
    /// A gateway on a store file, with an in-memory transport, committing after every message as the runtime does
    /// once per iteration.
    final class Node {
        static let key = try! TokenKey(secret: "rollcall-storage-resume-tests-shared-secret")
        let transport = InMemoryTransport()
        let store: SQLiteRoomStore
        let gateway: RoomsNode
        let clock: ManualClock
        private var nextSession: UInt64 = 1

        init(path: String, clock: ManualClock) throws {
            self.clock = clock
            self.store = try SQLiteRoomStore(configuration: StorageConfiguration(path: path))
            self.gateway = RoomsNode(
                configuration: RoomsConfiguration(), verifier: try TokenVerifier(keys: [Self.key]),
                transport: self.transport, clock: { clock.now })
            self.gateway.store = self.store
        }

        func connect(_ uid: String, role: TokenRole) throws -> SessionID {
            let claims = TokenClaims(subject: uid, expiresAt: self.clock.now / 1000 + 3600, rooms: ["r": role])
            let id = SessionID(self.nextSession)
            self.nextSession += 1
            self.gateway.sessionOpened(id, token: try TokenSigner(key: Self.key).sign(claims))
            _ = self.transport.drain(id)
            return id
        }

        func send(_ id: SessionID, _ message: JSONValue) throws {
            Array(JSONWriter.string(message).utf8).withUnsafeBytes { self.gateway.sessionReceived(id, text: $0) }
            try self.store.commit()
        }

        func sequence() -> UInt64 { self.gateway.roomState("r")?.sequence ?? 0 }
    }

    @Test func theNewestCheckpointAtOrBeforeASequenceNumberIsReadBack() throws {
        let path = NSTemporaryDirectory() + "rollcall-resume-\(UUID().uuidString).db"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try SQLiteRoomStore(configuration: StorageConfiguration(path: path))
        var replica = RoomReplica(state: RoomState(id: "r"))
        for sequence in UInt64(1)...30 {
            let entry = RoomLogEntry(
                sequence: sequence, time: 1_000, actor: "u-a", reason: nil,
                event: .flagChanged(uid: "u-a", flag: .handRaised, value: sequence % 2 == 1))
            replica.apply(entry, speakerRule: .hold(milliseconds: 0))
            store.append(StoredLogEntry(entry: entry, eventName: "e", message: Array("{}".utf8)), room: "r")
            if sequence % 10 == 0 { store.writeCheckpoint(replica) }
        }
        try store.commit()
        #expect(try store.checkpoint(room: "r", atOrBefore: 25)?.state.sequence == 20)
        #expect(try store.checkpoint(room: "r", atOrBefore: 30)?.state.sequence == 30)
        #expect(try store.checkpoint(room: "r", atOrBefore: 99)?.state.sequence == 30)
        #expect(try store.checkpoint(room: "r", atOrBefore: 9) == nil)
        #expect(try store.checkpoint(room: "other", atOrBefore: 30) == nil)
    }

    @Test func aClientResumesAfterARestartFromBeforeTheCheckpointTheRoomIsReadBackFrom() throws {
        let path = NSTemporaryDirectory() + "rollcall-resume-\(UUID().uuidString).db"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let clock = ManualClock()
        var position: UInt64 = 0
        var roster: JSONValue = .null
        var rosterSequence: Int64 = 0
        do {
            let node = try Node(path: path, clock: clock)
            let bob = try node.connect("u-bob", role: .participant)
            try node.send(bob, ["type": "join", "room": "r", "device": "phone"])
            let watcher = try node.connect("o-watch", role: .viewer)
            try node.send(watcher, ["type": "join", "room": "r", "as": "observer", "events": "none"])
            for index in 0..<40 {
                try node.send(bob, ["type": "state", "room": "r", "handRaised": .bool(index % 2 == 0)])
            }
            clock.advance(milliseconds: 100)
            node.gateway.tick()
            // The watcher's mirror: its snapshot with every patch after it applied.
            for message in node.transport.drain(watcher) {
                if message["type"] == "snapshot", let value = message["roster"] { roster = value }
                if message["type"] == "patch", let patch = message["patch"] {
                    roster = JSONMergePatch.apply(patch, to: roster)
                }
                if message["type"] == "snapshot" || message["type"] == "patch" {
                    rosterSequence = message["seq"]?.intValue ?? 0
                }
            }
            position = node.sequence()
            #expect(rosterSequence > 0 && rosterSequence <= Int64(position))
            node.gateway.sessionClosed(watcher, cleanly: false)
            for index in 0..<460 {
                try node.send(bob, ["type": "state", "room": "r", "handRaised": .bool(index % 2 == 0)])
            }
            #expect(node.sequence() > 497)
        }
        let node = try Node(path: path, clock: clock)
        let again = try node.connect("o-watch", role: .viewer)
        try node.send(
            again,
            [
                "type": "join", "id": "j", "room": "r", "as": "observer", "events": "none",
                "resume": .int(rosterSequence), "resumeEvents": .int(Int64(position)),
            ])
        let history = try node.gateway.storedHistory("r", after: 0, eventNames: nil, limit: 1)
        #expect(history.firstRetained > position + 1, "memory starts after the resume point")
        let answer = node.transport.drain(again)
        #expect(answer.last?["type"] == "resumed")
        #expect(answer.last?["recovered"] == true)
        let patches = answer.filter { $0["type"] == "patch" }
        try #require(patches.count == 1)
        #expect(patches[0]["from"] == .int(rosterSequence))
        #expect(answer.filter { $0["type"] == "event" }.isEmpty, "the none mode takes no roster event")
        // The patch brings the mirror from before the restart to the restarted gateway's view.
        let patched = JSONMergePatch.apply(patches[0]["patch"] ?? .null, to: roster)
        #expect(patched == node.gateway.renderedView(room: "r", spec: .all))
    }
}

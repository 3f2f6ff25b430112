import EventIO
import Foundation
import Rooms
import Storage
import Testing

@testable import RollcallServer

/// Group commit: what acknowledges a change leaves only once the change is committed to the store.
@Suite("Committing the rooms thread's writes before its output leaves")
struct StoreCommitTests {
    static func temporaryStore() throws -> (SQLiteRoomStore, String) {
        let path = NSTemporaryDirectory() + "rollcall-commit-\(UUID().uuidString).db"
        return (try SQLiteRoomStore(configuration: StorageConfiguration(path: path)), path)
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    static let entry = StoredLogEntry(
        entry: RoomLogEntry(sequence: 1, time: 1, actor: "u-a", reason: nil, event: .sessionEnded),
        eventName: "session.ended", message: Array(#"{"seq":1}"#.utf8))

    @Test("An answer that waits for the commit runs once the writes before it are in the file")
    func anAnswerWaitsForTheCommit() throws {
        let (store, path) = try Self.temporaryStore()
        defer { Self.remove(path) }
        let loop = try EventLoop(index: -1, receiveBufferSize: 1024)
        let committer = StoreCommitter(store: store, loop: loop, logger: GatewayLogger())
        store.append(Self.entry, room: "r")
        var answered = false
        committer.whenCommitted { answered = true }
        #expect(!answered)
        #expect(try SQLiteWebhookLog(path: path).items(after: 0, limit: 10).isEmpty)
        committer.commit()
        #expect(answered)
        #expect(try SQLiteWebhookLog(path: path).items(after: 0, limit: 10).map(\.sequence) == [1])
        var later = false
        committer.whenCommitted { later = true }
        #expect(later)  // nothing waits: at once
    }

    @Test("The transport runs the commit before it hands an iteration's output to the connection loops")
    func theHandOverCommitsFirst() throws {
        let loop = try EventLoop(index: -1, receiveBufferSize: 1024)
        let transport = LoopTransport(gatewayLoop: loop, latency: LatencyHistogram(), logger: GatewayLogger())
        var commits = 0
        transport.beforeHandOver = {
            commits += 1
            return true
        }
        transport.flush()
        #expect(commits == 1)
    }
}

import Foundation
import Rooms
import Testing

@testable import Storage

/// What the store's counters count: entries and checkpoints that reached the file, whatever the commits that failed
/// on the way.
@Suite struct StoreStatisticsTests {
    @Test func entriesOfAFailedCommitAreCountedOnceWhenTheRetrySucceedsNotOncePerTry() throws {
        let path = NSTemporaryDirectory() + "rollcall-statistics-\(UUID().uuidString).db"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try SQLiteRoomStore(configuration: StorageConfiguration(path: path))
        for sequence in UInt64(1)...3 {
            let entry = RoomLogEntry(sequence: sequence, time: 5, actor: nil, reason: nil, event: .sessionEnded)
            store.append(StoredLogEntry(entry: entry, eventName: "session.ended", message: [0x7B, 0x7D]), room: "r")
        }
        store.writeCheckpoint(RoomReplica(state: RoomState(id: "r")))
        // The entries and the checkpoint go in, then the room's row is refused: the transaction is rolled back.
        try store.database.execute(
            "CREATE TRIGGER refuse_rooms BEFORE INSERT ON rooms BEGIN SELECT RAISE(ABORT, 'refused'); END")
        #expect(throws: RoomStoreError.self) { try store.commit() }
        #expect(store.statistics.commitFailures == 1)
        #expect(store.statistics.entriesWritten == 0)
        #expect(store.statistics.checkpointsWritten == 0)
        try store.database.execute("DROP TRIGGER refuse_rooms")
        try store.commit()
        #expect(store.statistics.commits == 1)
        #expect(store.statistics.entriesWritten == 3)
        #expect(store.statistics.checkpointsWritten == 1)
    }
}

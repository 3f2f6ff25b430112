import Foundation
import JSONCoding
import Rooms
import Testing

@testable import Storage

/// Damage the file's own checks cannot see: records whose bytes changed inside valid pages, an emptied file, a
/// store of the version before checksums, and commits that fail.
@Suite struct StoreIntegrityTests {
    typealias Directory = SQLiteRoomStoreTests.Directory

    static func store(_ directory: Directory) throws -> SQLiteRoomStore {
        try SQLiteRoomStore(configuration: StorageConfiguration(path: directory.database))
    }

    static func meeting(_ sequence: UInt64, _ text: String) -> StoredLogEntry {
        let message = MeetingMessage(sessionID: "s", callType: "audio", sender: "u-a", text: text, isActive: true)
        let entry = RoomLogEntry(
            sequence: sequence, time: 1_000, actor: "u-a", reason: nil, event: .meetingMessage(message))
        return StoredLogEntry(
            entry: entry, eventName: "meeting.message", message: Array(#"{"seq":\#(sequence),"text":"\#(text)"}"#.utf8))
    }

    /// A store at `path` with room `r`'s meeting messages 1...count (texts `prefix-N`) and a checkpoint at
    /// `checkpointAt`, committed.
    static func store(
        at path: String, meetingMessages count: UInt64, checkpointAt: UInt64, prefix: String
    ) throws -> SQLiteRoomStore {
        let store = try SQLiteRoomStore(configuration: StorageConfiguration(path: path))
        var replica = RoomReplica(state: RoomState(id: "r"))
        for sequence in UInt64(1)...count {
            let stored = Self.meeting(sequence, "\(prefix)-\(sequence)")
            replica.apply(stored.entry, speakerRule: .hold(milliseconds: 0))
            store.append(stored, room: "r")
            if sequence == checkpointAt { store.writeCheckpoint(replica) }
        }
        try store.commit()
        return store
    }

    /// Room `r` with meeting messages 1...10 and a checkpoint at 5, committed.
    static func storeWithMeetingMessages(_ directory: Directory) throws -> SQLiteRoomStore {
        try Self.store(at: directory.database, meetingMessages: 10, checkpointAt: 5, prefix: "note")
    }

    /// Runs SQL on the file through a connection of its own, as a hand edit or a stray writer would.
    static func edit(_ directory: Directory, _ sql: String) throws {
        try SQLiteDatabase(path: directory.database).execute(sql)
    }

    static func isDamage(_ error: any Error) -> Bool { "\(error)".contains("is damaged") }

    @Test func anEntryWhoseStoredMessageChangedFailsEveryReadThatReachesIt() throws {
        let directory = try Directory()
        let store = try Self.storeWithMeetingMessages(directory)
        try Self.edit(directory, "UPDATE entries SET message = replace(message, 'note-8', 'note-X') WHERE seq = 8")
        #expect(throws: RoomStoreError.self) { try store.loadRoom("r", maximumEntries: 100) }
        #expect { try store.loadRoom("r", maximumEntries: 100) } throws: { Self.isDamage($0) }
        #expect { try store.history(room: "r", after: 0, eventNames: nil, limit: 100) } throws: { Self.isDamage($0) }
        // A read that does not reach the damaged record is served.
        #expect(try store.history(room: "r", after: 8, eventNames: nil, limit: 100).map(\.entry.sequence) == [9, 10])
    }

    /// What reading room `r` back (meeting messages 1...10, a checkpoint at 5) throws once `sql` changed the file;
    /// nil when it reads.
    static func loadError(after sql: String, maximumEntries: Int = 100) throws -> String? {
        let directory = try Directory()
        let store = try Self.storeWithMeetingMessages(directory)
        try Self.edit(directory, sql)
        do {
            _ = try store.loadRoom("r", maximumEntries: maximumEntries)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func anEntryWhoseStateChangedInsideAValidRecordIsRefused() throws {
        // The entry still parses, and would give the room another state.
        let error = try Self.loadError(
            after: "UPDATE entries SET entry = replace(entry, 'note-9', 'note-0') WHERE seq = 9")
        #expect(error?.contains("entry 9 of room 'r' is damaged (its checksum does not match)") == true)
    }

    @Test func aDamagedCheckpointFailsTheRoomsReadingBack() throws {
        #expect(try Self.loadError(after: "SELECT 1", maximumEntries: 5) == nil)
        // Still JSON that parses, one byte longer.
        let error = try Self.loadError(after: "UPDATE checkpoints SET body = body || ' '", maximumEntries: 5)
        #expect(error?.contains("the checkpoint at 5 of room 'r' is damaged") == true)
    }

    @Test func aRecordWrittenWithAChecksumThatLostItIsRefused() throws {
        let error = try Self.loadError(after: "UPDATE entries SET checksum = NULL WHERE seq = 10")
        #expect(error?.contains("entry 10 of room 'r' is damaged (its checksum is missing)") == true)
    }

    @Test func aDamagedModerationEntryFailsTheAudit() throws {
        let directory = try Directory()
        let store = try Self.store(directory)
        store.append(SQLiteRoomStoreTests.entry(1, .banChanged(uid: "u-b", isBanned: true), time: 20), room: "r")
        try store.commit()
        try Self.edit(directory, "UPDATE entries SET time = 21 WHERE seq = 1")
        #expect { try store.audit(room: nil, before: nil, limit: 10) } throws: { Self.isDamage($0) }
    }

    @Test func aStoreOfTheVersionBeforeChecksumsIsUpgradedAndKeepsWorking() throws {
        let directory = try Directory()
        // A version 1 file: its tables without checksums, with the records a version 1 gateway wrote.
        let current = directory.path + "/current.db"
        _ = try Self.store(at: current, meetingMessages: 4, checkpointAt: 2, prefix: "old")
        try Self.edit(
            directory,
            """
            CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE entries (
                id INTEGER PRIMARY KEY, room TEXT NOT NULL, seq INTEGER NOT NULL, time INTEGER NOT NULL,
                class INTEGER NOT NULL, event TEXT NOT NULL, entry TEXT NOT NULL, message TEXT NOT NULL,
                UNIQUE (room, seq));
            CREATE TABLE checkpoints (
                room TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (room, seq));
            CREATE TABLE rooms (room TEXT PRIMARY KEY, seq INTEGER NOT NULL, time INTEGER NOT NULL);
            ATTACH '\(current)' AS current;
            INSERT INTO entries SELECT id, room, seq, time, class, event, entry, message FROM current.entries;
            INSERT INTO checkpoints SELECT room, seq, body FROM current.checkpoints;
            INSERT INTO rooms SELECT * FROM current.rooms;
            DETACH current;
            PRAGMA user_version = 1;
            """)

        let upgraded = try Self.store(directory)
        #expect(try upgraded.database.integer("PRAGMA user_version") == SQLiteSchema.version)
        let room = try #require(try upgraded.loadRoom("r", maximumEntries: 1))
        #expect(room.checkpoint?.state.sequence == 2)
        #expect(room.entries.map(\.entry.sequence) == [3, 4])
        #expect(try upgraded.history(room: "r", after: 0, eventNames: nil, limit: 10).count == 4)
        // What is written from now on carries a checksum and is checked.
        upgraded.append(Self.meeting(5, "new-5"), room: "r")
        try upgraded.commit()
        #expect(try upgraded.loadRoom("r", maximumEntries: 10)?.entries.last?.entry.sequence == 5)
        try Self.edit(directory, "UPDATE entries SET message = replace(message, 'new-5', 'new-6') WHERE seq = 5")
        #expect { try upgraded.loadRoom("r", maximumEntries: 10) } throws: { Self.isDamage($0) }
        // Opened again, the upgrade is not done twice.
        #expect(try Self.store(directory).history(room: "r", after: 0, eventNames: nil, limit: 4).count == 4)
    }

    @Test func aZeroByteStoreFileStopsTheStartAndItsWriteAheadLogIsLeftAsItWas() throws {
        let directory = try Directory()
        try Data().write(to: URL(fileURLWithPath: directory.database))
        let wal = Data("frames that may still hold the rooms".utf8)
        try wal.write(to: URL(fileURLWithPath: directory.database + "-wal"))
        #expect { try Self.store(directory) } throws: { error in
            "\(error)".contains("\(directory.database) is empty (0 bytes)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.database)).isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.database + "-wal")) == wal)
    }

    @Test func aNewStoreIsCreatedWholeUnderItsNameWithNothingLeftBeside() throws {
        let directory = try Directory()
        let store = try Self.store(directory)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names.allSatisfy { $0.hasPrefix("rollcall.db") && !$0.contains(".new") })
        #expect(try store.database.integer("PRAGMA user_version") == SQLiteSchema.version)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.database)
        #expect((attributes[.size] as? NSNumber)?.intValue ?? 0 > 0)
    }

    @Test func aFailedCommitKeepsItsWritesCountsNothingAsWrittenAndTheNextOneWritesThem() throws {
        let directory = try Directory()
        let store = try Self.store(directory)
        store.append(Self.meeting(1, "one"), room: "r")
        try store.database.execute("PRAGMA query_only = 1")
        #expect(throws: RoomStoreError.self) { try store.commit() }
        #expect(store.statistics.isFailing && store.statistics.commitFailures == 1)
        #expect(store.statistics.entriesWritten == 0 && store.hasPendingWrites)
        store.append(Self.meeting(2, "two"), room: "r")
        try store.database.execute("PRAGMA query_only = 0")
        try store.commit()
        #expect(!store.statistics.isFailing && !store.hasPendingWrites)
        #expect(store.statistics.entriesWritten == 2 && store.statistics.commits == 1)
        #expect(try Self.store(directory).loadRoom("r", maximumEntries: 10)?.entries.map(\.entry.sequence) == [1, 2])
    }
}

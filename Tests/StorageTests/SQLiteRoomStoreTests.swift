import Foundation
import JSONCoding
import Rooms
import Storage
import Testing

/// The SQLite store on a temporary file: commits, reading rooms back, retention per class, and the start checks.
@Suite struct SQLiteRoomStoreTests {
    /// A fresh directory for one test, removed at the end.
    final class Directory {
        let path: String
        init() throws {
            self.path = NSTemporaryDirectory() + "rollcall-store-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: self.path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: self.path) }
        var database: String { self.path + "/rollcall.db" }
    }

    static func entry(
        _ sequence: UInt64, _ event: RoomEvent, time: Int64 = 1_000, actor: String? = "u-a"
    ) -> StoredLogEntry {
        let entry = RoomLogEntry(sequence: sequence, time: time, actor: actor, reason: nil, event: event)
        return StoredLogEntry(entry: entry, eventName: "e.\(sequence)", message: Array("{\"seq\":\(sequence)}".utf8))
    }

    static let hand = RoomEvent.flagChanged(uid: "u-a", flag: .handRaised, value: true)
    static let meeting = RoomEvent.meetingMessage(
        MeetingMessage(sessionID: "s", callType: "audio", sender: "u-a", text: "hi", isActive: true))

    @Test func whatIsCommittedIsReadBackByAnotherOpeningAndWhatIsNotIsGone() throws {
        let directory = try Directory()
        do {
            let store = try SQLiteRoomStore(configuration: StorageConfiguration(path: directory.database))
            store.append(Self.entry(1, Self.hand), room: "r")
            try store.commit()
            store.append(Self.entry(2, Self.hand), room: "r")  // never committed
        }
        let reopened = try SQLiteRoomStore(configuration: StorageConfiguration(path: directory.database))
        let room = try #require(try reopened.loadRoom("r", maximumEntries: 100))
        #expect(room.checkpoint == nil)
        #expect(room.entries.map(\.entry.sequence) == [1])
        #expect(room.entries.first?.message == Array("{\"seq\":1}".utf8))
        #expect(try reopened.loadRoom("other", maximumEntries: 100) == nil)
        #expect(try reopened.rooms(after: nil, limit: 10).map(\.room) == ["r"])
    }

    @Test func aRoomIsReadBackFromTheOldestCheckpointItsContiguousEntriesReach() throws {
        let directory = try Directory()
        let store = try SQLiteRoomStore(configuration: StorageConfiguration(path: directory.database))
        var replica = RoomReplica(state: RoomState(id: "r"))
        for sequence in UInt64(1)...30 {
            let stored = Self.entry(sequence, Self.hand)
            replica.apply(stored.entry, speakerRule: .hold(milliseconds: 0))
            store.append(stored, room: "r")
            if sequence % 10 == 0 { store.writeCheckpoint(replica) }
        }
        try store.commit()
        let room = try #require(try store.loadRoom("r", maximumEntries: 15))
        #expect(room.checkpoint?.state.sequence == 20)
        #expect(room.entries.map(\.entry.sequence) == Array(21...30))
    }

    @Test func retentionDropsRosterChurnBehindTheCheckpointButKeepsMeetingMessages() throws {
        let directory = try Directory()
        var configuration = StorageConfiguration(path: directory.database)
        configuration.retention[.roster] = HistoryRetention(maximumEntries: 5, maximumAgeMilliseconds: 1_000_000)
        let store = try SQLiteRoomStore(configuration: configuration)
        var replica = RoomReplica(state: RoomState(id: "r"))
        for sequence in UInt64(1)...40 {
            let stored = Self.entry(sequence, sequence == 3 ? Self.meeting : Self.hand)
            replica.apply(stored.entry, speakerRule: .hold(milliseconds: 0))
            store.append(stored, room: "r")
            if sequence == 30 { store.writeCheckpoint(replica) }
        }
        try store.commit()
        let dropped = try store.trim(now: 2_000)
        // Roster entries up to the checkpoint (30) go, except the newest five of the class; after it nothing goes.
        #expect(dropped == 29)
        let left = try store.history(room: "r", after: 0, eventNames: nil, limit: 100).map(\.entry.sequence)
        #expect(left.first == 3)  // the meeting message stays
        #expect(left.contains(40) && left.contains(31))
        #expect(!left.contains(10))
        let room = try #require(try store.loadRoom("r", maximumEntries: 100))
        #expect(room.checkpoint?.state.sequence == 30)
        #expect(room.entries.map(\.entry.sequence) == Array(31...40))
    }

    @Test func historyFiltersByEventNameAndAuditListsModerationNewestFirst() throws {
        let directory = try Directory()
        let store = try SQLiteRoomStore(configuration: StorageConfiguration(path: directory.database))
        store.append(Self.entry(1, Self.hand, time: 10), room: "r")
        store.append(Self.entry(2, .banChanged(uid: "u-b", isBanned: true), time: 20), room: "r")
        store.append(Self.entry(3, .operatorChanged(uid: "u-c", isOperator: true), time: 30), room: "r")
        try store.commit()
        #expect(try store.history(room: "r", after: 0, eventNames: ["e.2"], limit: 10).map(\.entry.sequence) == [2])
        let audit = try store.audit(room: nil, before: nil, limit: 10)
        #expect(audit.map(\.entry.entry.sequence) == [3, 2])
        #expect(try store.audit(room: "r", before: 30, limit: 10).map(\.entry.entry.target) == ["u-b"])
    }

    @Test func aFileThatIsNotADatabaseStopsTheStartWithItsReason() throws {
        let directory = try Directory()
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: directory.database))
        #expect {
            _ = try SQLiteRoomStore(configuration: StorageConfiguration(path: directory.database))
        } throws: { error in
            "\(error)".contains("not a SQLite database")
        }
    }

    @Test func aStoreWrittenByANewerVersionIsRefused() throws {
        let directory = try Directory()
        do {
            _ = try SQLiteRoomStore(configuration: StorageConfiguration(path: directory.database))
        }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = [
            "python3", "-c",
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA user_version=99'); c.commit()",
            directory.database,
        ]
        try probe.run()
        probe.waitUntilExit()
        #expect {
            _ = try SQLiteRoomStore(configuration: StorageConfiguration(path: directory.database))
        } throws: { error in
            "\(error)".contains("newer version")
        }
    }

    @Test func aPathThatCannotBeCreatedStopsTheStartWithItsReason() throws {
        let directory = try Directory()
        #expect {
            _ = try SQLiteRoomStore(configuration: StorageConfiguration(path: directory.path + "/missing/x.db"))
        } throws: { error in
            "\(error)".contains("cannot open or create")
        }
    }

    @Test func theStoreFileIsReadableByItsOwnerOnly() throws {
        let directory = try Directory()
        _ = try SQLiteRoomStore(configuration: StorageConfiguration(path: directory.database))
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.database)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func theOnlineBackupCopiesACommittedStore() throws {
        let directory = try Directory()
        let store = try SQLiteRoomStore(configuration: StorageConfiguration(path: directory.database))
        store.append(Self.entry(1, Self.meeting), room: "r")
        try store.commit()
        try store.backup(to: directory.path + "/backup.db")
        let copy = try SQLiteRoomStore(configuration: StorageConfiguration(path: directory.path + "/backup.db"))
        #expect(try copy.loadRoom("r", maximumEntries: 10)?.entries.count == 1)
    }
}

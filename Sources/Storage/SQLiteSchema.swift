internal import CSQLite

#if canImport(Glibc)
import Glibc
#endif

/// The store's tables, and the checks a database file passes before the gateway uses it.
enum SQLiteSchema {
    /// The schema this version writes (`PRAGMA user_version`). Version 2 added a checksum to every entry and
    /// checkpoint (`RecordChecksum`); version 3 the message webhooks deliver instead of the subscribers' one
    /// (`StoredLogEntry.webhookMessage`). Older files are upgraded in place when they are opened.
    static let version: Int64 = 3

    static let tables = """
        CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS entries (
            id INTEGER PRIMARY KEY, room TEXT NOT NULL, seq INTEGER NOT NULL, time INTEGER NOT NULL,
            class INTEGER NOT NULL, event TEXT NOT NULL, entry TEXT NOT NULL, message TEXT NOT NULL,
            checksum INTEGER, webhook_message TEXT, UNIQUE (room, seq));
        CREATE INDEX IF NOT EXISTS entries_by_class ON entries (room, class, seq);
        CREATE INDEX IF NOT EXISTS entries_moderation ON entries (class, time);
        CREATE TABLE IF NOT EXISTS checkpoints (
            room TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, checksum INTEGER, PRIMARY KEY (room, seq));
        CREATE TABLE IF NOT EXISTS rooms (room TEXT PRIMARY KEY, seq INTEGER NOT NULL, time INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS webhook_positions (endpoint TEXT PRIMARY KEY, position INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS webhook_cursors (
            endpoint TEXT NOT NULL, room TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (endpoint, room));
        CREATE TABLE IF NOT EXISTS webhook_dead_letters (
            endpoint TEXT NOT NULL, room TEXT NOT NULL, seq INTEGER NOT NULL, time INTEGER NOT NULL,
            error TEXT NOT NULL);
        """

    /// The `meta` keys naming the last entry and checkpoint (by row id) written before checksums: those rows are
    /// read without a check, every later row must carry a checksum that matches.
    static let uncheckedEntriesKey = "unchecked_entries_through"
    static let uncheckedCheckpointsKey = "unchecked_checkpoints_through"

    /// From version 1, which kept no checksums: the columns are added and the rows already there marked as
    /// unchecked, so existing stores keep working and what is written from now on is verified.
    static let upgradeFromVersion1 = """
        ALTER TABLE entries ADD COLUMN checksum INTEGER;
        ALTER TABLE checkpoints ADD COLUMN checksum INTEGER;
        INSERT OR REPLACE INTO meta (key, value)
            SELECT '\(Self.uncheckedEntriesKey)', COALESCE(MAX(id), 0) FROM entries;
        INSERT OR REPLACE INTO meta (key, value)
            SELECT '\(Self.uncheckedCheckpointsKey)', COALESCE(MAX(rowid), 0) FROM checkpoints;
        """

    /// From version 2: the column of the webhooks' own message (null in the rows already there, as in most).
    static let upgradeFromVersion2 = "ALTER TABLE entries ADD COLUMN webhook_message TEXT;"

    /// Opens the file for the gateway: created when missing (mode 0600, see `create`; SQLite gives its `-wal` and
    /// `-shm` files the same mode), WAL mode, the sync level, and the checks that turn a damaged, empty, foreign,
    /// newer or unwritable file into an error at start rather than an empty store.
    static func open(path: String, sync: StorageSync) throws(RoomStoreFailure) -> SQLiteDatabase {
        guard !path.isEmpty else { throw RoomStoreFailure("storage.path is empty") }
        let descriptor = Glibc.open(path, O_RDWR | O_CLOEXEC)
        if descriptor >= 0 {
            var status = stat()
            let size = fstat(descriptor, &status) == 0 ? Int64(status.st_size) : -1
            Glibc.close(descriptor)
            // SQLite would take an empty file for a new database, and delete the write-ahead log beside it.
            guard size != 0 else {
                throw RoomStoreFailure(
                    "\(path) is empty (0 bytes): a store is never empty once created, so this one lost its contents; "
                        + "restore a backup, or remove the file to start with an empty store (its -wal file, if any, "
                        + "is left as it was)")
            }
        } else if errno == ENOENT {
            try Self.create(path: path)
        } else {
            throw RoomStoreFailure("cannot open or create \(path): \(String(cString: strerror(errno)))")
        }
        do {
            let database = try SQLiteDatabase(path: path)
            let mode = try database.text("PRAGMA journal_mode = WAL")
            guard mode == "wal" else {
                throw RoomStoreFailure("\(path): cannot switch to WAL mode (got \(mode ?? "nothing"))")
            }
            try database.execute("PRAGMA synchronous = \(sync.rawValue.uppercased())")
            let check = try database.text("PRAGMA quick_check")
            guard check == "ok" else { throw RoomStoreFailure("\(path) is damaged: \(check ?? "no answer")") }
            let version = try database.integer("PRAGMA user_version") ?? 0
            guard version <= Self.version else {
                throw RoomStoreFailure(
                    "\(path) was written by a newer version (schema \(version), this one reads \(Self.version))")
            }
            // Also proves the file is writable: a read-only file or directory fails here, at start.
            try database.execute("BEGIN IMMEDIATE")
            do {
                if version == 1 { try database.execute(Self.upgradeFromVersion1) }
                if version == 1 || version == 2 { try database.execute(Self.upgradeFromVersion2) }
                try database.execute(Self.tables)
                try database.execute("PRAGMA user_version = \(Self.version)")
                try database.execute("COMMIT")
            } catch {
                try? database.execute("ROLLBACK")
                throw error
            }
            return database
        } catch let error as SQLiteError {
            throw RoomStoreFailure("\(path): \(Self.explain(error))")
        } catch let error as RoomStoreFailure {
            throw error
        } catch {
            throw RoomStoreFailure("\(path): \(error)")
        }
    }

    /// Creates a new store so that it never exists half made: the tables are written to `PATH.new` (mode 0600),
    /// which is then renamed into place. A file at the path is a whole store or none of this gateway's (an empty
    /// one is refused), also when the process dies while creating it.
    private static func create(path: String) throws(RoomStoreFailure) {
        let temporary = path + ".new"
        unlink(temporary + "-journal")
        let descriptor = Glibc.open(temporary, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw RoomStoreFailure("cannot open or create \(path): \(String(cString: strerror(errno)))")
        }
        Glibc.close(descriptor)
        do throws(SQLiteError) {
            try Self.writeTables(to: temporary)
        } catch {
            unlink(temporary)
            throw RoomStoreFailure("cannot create \(path): \(Self.explain(error))")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw RoomStoreFailure("cannot create \(path): \(reason)")
        }
        // The new name reaches the disk too.
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let handle = Glibc.open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if handle >= 0 {
            fsync(handle)
            Glibc.close(handle)
        }
    }

    /// Writes the tables into a new file and closes it (the connection ends with this call).
    private static func writeTables(to path: String) throws(SQLiteError) {
        let database = try SQLiteDatabase(path: path)
        try database.execute("PRAGMA synchronous = FULL")
        try database.execute("BEGIN IMMEDIATE; \(Self.tables) PRAGMA user_version = \(Self.version); COMMIT")
    }

    /// Words for the failures an operator meets at start.
    static func explain(_ error: SQLiteError) -> String {
        switch error.code {
        case SQLITE_NOTADB: return "not a SQLite database, or damaged (\(error))"
        case SQLITE_CORRUPT: return "the database is damaged (\(error)); restore a backup"
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN:
            return "cannot be written (\(error)); check the permissions of the file and its directory"
        case SQLITE_FULL: return "the disk is full (\(error))"
        default: return error.description
        }
    }
}

internal import CSQLite

#if canImport(Glibc)
import Glibc
#endif

/// The store's tables, and the checks a database file passes before the gateway uses it.
enum SQLiteSchema {
    /// The schema this version writes (`PRAGMA user_version`).
    static let version: Int64 = 1

    static let tables = """
        CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS entries (
            id INTEGER PRIMARY KEY, room TEXT NOT NULL, seq INTEGER NOT NULL, time INTEGER NOT NULL,
            class INTEGER NOT NULL, event TEXT NOT NULL, entry TEXT NOT NULL, message TEXT NOT NULL,
            UNIQUE (room, seq));
        CREATE INDEX IF NOT EXISTS entries_by_class ON entries (room, class, seq);
        CREATE INDEX IF NOT EXISTS entries_moderation ON entries (class, time);
        CREATE TABLE IF NOT EXISTS checkpoints (
            room TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (room, seq));
        CREATE TABLE IF NOT EXISTS rooms (room TEXT PRIMARY KEY, seq INTEGER NOT NULL, time INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS webhook_positions (endpoint TEXT PRIMARY KEY, position INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS webhook_cursors (
            endpoint TEXT NOT NULL, room TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (endpoint, room));
        CREATE TABLE IF NOT EXISTS webhook_dead_letters (
            endpoint TEXT NOT NULL, room TEXT NOT NULL, seq INTEGER NOT NULL, time INTEGER NOT NULL,
            error TEXT NOT NULL);
        """

    /// Opens the file for the gateway: created with mode 0600 when missing (SQLite gives its `-wal` and `-shm`
    /// files the same mode), WAL mode, the sync level, and the checks that turn a damaged, foreign, newer or
    /// unwritable file into an error at start rather than an empty store.
    static func open(path: String, sync: StorageSync) throws(RoomStoreFailure) -> SQLiteDatabase {
        guard !path.isEmpty else { throw RoomStoreFailure("storage.path is empty") }
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw RoomStoreFailure("cannot open or create \(path): \(String(cString: strerror(errno)))")
        }
        Glibc.close(descriptor)
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

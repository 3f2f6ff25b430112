/// How hard a commit pushes its transaction to the disk (SQLite's `synchronous` in WAL mode).
public enum StorageSync: String, Hashable, Sendable, CaseIterable {
    /// No fsync: a committed change survives the process ending (SIGKILL, a crash), not the machine losing power or
    /// the kernel crashing (the last commits may then be lost; the file stays consistent).
    case off
    /// fsync at checkpoints of the write-ahead log, not at every commit: like `off` for the process, and after a
    /// power loss the file is consistent but the last commits may be missing. SQLite's default for WAL.
    case normal
    /// fsync of the write-ahead log at every commit: a committed change survives a power loss too. Costs one fsync per
    /// iteration of the rooms thread that changed something.
    case full
}

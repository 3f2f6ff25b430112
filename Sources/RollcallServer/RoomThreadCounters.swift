import Rooms
import Storage

/// What one rooms thread counts for `/metrics`, read on its thread at a scrape; `Metrics` says which field each
/// family shows and how the threads' values add up.
struct RoomThreadCounters: Sendable {
    var statistics: RoomsStatistics
    /// Rooms this thread holds.
    var rooms: Int
    /// Rooms-protocol connections (every thread knows every session).
    var sessions: Int
    /// Subscriptions to this thread's rooms.
    var subscribers: Int
    var compression: LoopTransport.CompressionStatistics
    /// The counters of this thread's connection to the store; nil without a store.
    var storage: StorageStatistics?

    /// The counters of `gateway`, one rooms thread of `runtime`; call on its thread.
    init(of gateway: RoomsNode, in runtime: GatewayRuntime) {
        self.init(
            statistics: gateway.statistics, rooms: gateway.roomIDs.count, sessions: gateway.sessionCount,
            subscribers: gateway.subscriberCount, compression: runtime.compressionStatistics(of: gateway),
            storage: runtime.storageStatistics(of: gateway))
    }

    /// Counters as given (tests).
    init(
        statistics: RoomsStatistics = RoomsStatistics(), rooms: Int = 0, sessions: Int = 0, subscribers: Int = 0,
        compression: LoopTransport.CompressionStatistics = LoopTransport.CompressionStatistics(),
        storage: StorageStatistics? = nil
    ) {
        self.statistics = statistics
        self.rooms = rooms
        self.sessions = sessions
        self.subscribers = subscribers
        self.compression = compression
        self.storage = storage
    }
}

/// The bounds and settings of a `StreamConnection`.
public struct StreamConnectionOptions: Sendable {
    /// Reads per readiness event: a bound, so one busy connection does not starve the others on its loop.
    public var readsPerWakeup: Int
    /// The most bytes kept for the delegate between reads (a partial reply or frame); beyond it the connection
    /// fails with `inputLimit`.
    public var maximumBufferedBytes: Int
    /// The most bytes waiting for the socket; beyond it the connection fails with `outputLimit` at the end of the
    /// loop iteration.
    public var maximumQueuedBytes: Int
    /// Where the bytes on the wire are counted; nil for nowhere.
    public var statistics: StreamConnectionStatistics?

    /// - Parameters:
    ///   - readsPerWakeup: default 8.
    ///   - maximumBufferedBytes: default 16 MiB.
    ///   - maximumQueuedBytes: default 16 MiB.
    ///   - statistics: default nil.
    public init(
        readsPerWakeup: Int = 8,
        maximumBufferedBytes: Int = 16 * 1024 * 1024,
        maximumQueuedBytes: Int = 16 * 1024 * 1024,
        statistics: StreamConnectionStatistics? = nil
    ) {
        self.readsPerWakeup = max(1, readsPerWakeup)
        self.maximumBufferedBytes = maximumBufferedBytes
        self.maximumQueuedBytes = maximumQueuedBytes
        self.statistics = statistics
    }
}

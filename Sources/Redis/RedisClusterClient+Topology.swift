import EventIO

/// A cluster's slot map: read from a connected node with `CLUSTER SLOTS`, again after a `MOVED`, a lost primary, and
/// periodically; applied by connecting to new primaries, closing connections nobody needs, and moving shard
/// subscriptions to their slots' new primaries.
extension RedisClusterClient {
    /// Reads the slot map now from a connected node (a known primary first); with none connected, connects to the
    /// seeds again (their connecting reads it).
    func refreshSlotMap() {
        guard self.isStarted, self.isCluster, !self.refreshInFlight else { return }
        let candidates = (self.slotMap?.primaries ?? []) + self.nodes.keys.sorted()
        guard let address = candidates.first(where: { self.nodes[$0]?.isConnected == true }),
            let client = self.nodes[address]
        else {
            for seed in self.deployment.clusterSeeds ?? [] { _ = self.node(seed) }
            self.scheduleRefresh(afterMilliseconds: 250)
            return
        }
        self.refreshInFlight = true
        client.send(["CLUSTER", "SLOTS"]) { [weak self] result in
            guard let self, self.isStarted else { return }
            self.refreshInFlight = false
            guard case .success(let reply) = result, let map = RedisSlotMap(clusterSlots: reply, askedNode: address)
            else {
                if case .failure(let error) = result { self.onError?(error) }
                self.scheduleRefresh(afterMilliseconds: 250)
                return
            }
            self.apply(map)
        }
    }

    /// Reads the slot map after `milliseconds`, unless a read is already scheduled.
    func scheduleRefresh(afterMilliseconds milliseconds: Int64) {
        guard self.isStarted, self.isCluster, self.refreshTimer == nil else { return }
        self.refreshTimer = self.loop.scheduleTimer(afterNanoseconds: UInt64(max(milliseconds, 1)) * 1_000_000) {
            [weak self] in
            guard let self else { return }
            self.refreshTimer = nil
            self.refreshSlotMap()
        }
    }

    func schedulePeriodicRefresh() {
        let interval = UInt64(max(self.topologyRefreshMilliseconds, 100)) * 1_000_000
        self.periodicTimer = self.loop.scheduleTimer(afterNanoseconds: interval) { [weak self] in
            guard let self, self.isStarted else { return }
            self.refreshSlotMap()
            self.schedulePeriodicRefresh()
        }
    }

    /// Takes `map` as the cluster's: connects to its primaries, closes the other connections (once the map covers
    /// every slot), moves subscriptions, and reads it again soon when some slot is unserved.
    private func apply(_ map: RedisSlotMap) {
        self.slotMap = map
        for primary in map.primaries { _ = self.node(primary) }
        if map.coversEverySlot {
            for address in self.nodes.keys where !map.primaries.contains(address) {
                self.nodes.removeValue(forKey: address)?.stop()
                if self.channelHome == address { self.channelHome = nil }
                for (channel, home) in self.shardChannelHome where home == address {
                    self.shardChannelHome[channel] = nil
                }
            }
        } else {
            self.scheduleRefresh(afterMilliseconds: 250)
        }
        self.placeSubscriptions()
        self.updateState()
    }
}

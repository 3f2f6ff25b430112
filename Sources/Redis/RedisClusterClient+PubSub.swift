/// Pub/sub over the deployment: ordinary channels on one node, shard channels on their slots' primaries.
extension RedisClusterClient {
    /// Subscribes to ordinary channels (`SUBSCRIBE`), remembered across reconnects and failovers. In a cluster they
    /// are subscribed on one primary: Redis Cluster delivers an ordinary `PUBLISH` to the subscribers of every node.
    ///
    /// - Parameter channels: the channel names.
    public func subscribe(_ channels: [[UInt8]]) {
        self.isSubscriber = true
        let added = channels.filter { self.channels.insert($0).inserted }
        guard !added.isEmpty else { return }
        if !self.isCluster {
            self.node(self.singleAddress).subscribe(added)
        } else if let home = self.channelHome {
            self.nodes[home]?.subscribe(added)
        } else {
            self.placeSubscriptions()
        }
    }

    /// Unsubscribes from ordinary channels and forgets them.
    ///
    /// - Parameter channels: the channel names.
    public func unsubscribe(_ channels: [[UInt8]]) {
        let removed = channels.filter { self.channels.remove($0) != nil }
        guard !removed.isEmpty else { return }
        let home = self.isCluster ? self.channelHome : self.singleAddress
        if let home { self.nodes[home]?.unsubscribe(removed) }
    }

    /// Subscribes to shard channels: in a cluster with `SSUBSCRIBE` on the primary serving each channel's slot
    /// (moved there when the slot moves), against one server with `SUBSCRIBE`. Publish to them with
    /// `shardPublishCommand`.
    ///
    /// - Parameter channels: the channel names.
    public func subscribeShard(_ channels: [[UInt8]]) {
        self.isSubscriber = true
        let added = channels.filter { self.shardChannels.insert($0).inserted }
        guard !added.isEmpty else { return }
        if self.isCluster {
            self.placeSubscriptions()
        } else {
            self.node(self.singleAddress).subscribe(added)
        }
    }

    /// Unsubscribes from shard channels and forgets them.
    ///
    /// - Parameter channels: the channel names.
    public func unsubscribeShard(_ channels: [[UInt8]]) {
        let removed = channels.filter { self.shardChannels.remove($0) != nil }
        guard !removed.isEmpty else { return }
        guard self.isCluster else {
            self.nodes[self.singleAddress]?.unsubscribe(removed)
            return
        }
        for channel in removed {
            if let home = self.shardChannelHome.removeValue(forKey: channel) {
                self.nodes[home]?.unsubscribeShard([channel])
            }
        }
    }

    /// Subscribes each channel where the slot map puts it, unsubscribing it where it was.
    func placeSubscriptions() {
        guard self.isCluster, self.isSubscriber, let map = self.slotMap else { return }
        if let home = map.primaries.first, home != self.channelHome, !self.channels.isEmpty {
            if let old = self.channelHome { self.nodes[old]?.unsubscribe(Array(self.channels)) }
            self.node(home).subscribe(Array(self.channels))
            self.channelHome = home
        }
        var moves: [RedisNodeAddress: [[UInt8]]] = [:]
        for channel in self.shardChannels {
            guard let home = map.primary(of: RedisKeySlot.slot(of: channel)) else { continue }
            let old = self.shardChannelHome[channel]
            guard old != home else { continue }
            if let old { self.nodes[old]?.unsubscribeShard([channel]) }
            self.shardChannelHome[channel] = home
            moves[home, default: []].append(channel)
        }
        for (home, channels) in moves { self.node(home).subscribeShard(channels) }
    }

    /// The server ended a shard subscription (its slot moved): it is placed again once the map is read again.
    func shardChannelDropped(_ channel: [UInt8]) {
        guard self.shardChannels.contains(channel) else { return }
        self.shardChannelHome[channel] = nil
        self.scheduleRefresh(afterMilliseconds: 0)
    }
}

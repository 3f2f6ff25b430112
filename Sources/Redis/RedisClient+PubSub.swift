extension RedisClient {
    /// Subscribes to `channels`, remembering them: they are subscribed again after every reconnect, and their
    /// messages reach `onMessage`. A client used for subscriptions is used for nothing else: while subscribed,
    /// Redis accepts only subscription commands on the connection. The confirmations are consumed here.
    ///
    /// While the client is not connected the channels are only remembered, and subscribed on connect.
    ///
    /// - Parameter channels: the channel names; ones already subscribed are skipped.
    public func subscribe(_ channels: [[UInt8]]) {
        self.isSubscriber = true
        var added: [[UInt8]] = []
        for channel in channels where self.subscribedChannels.insert(channel).inserted {
            added.append(channel)
        }
        guard self.acceptsCommands else { return }
        self.sendSubscription("SUBSCRIBE", added)
    }

    /// Unsubscribes from `channels` and forgets them; no more of their messages reach `onMessage`.
    ///
    /// - Parameter channels: the channel names; ones not subscribed are skipped.
    public func unsubscribe(_ channels: [[UInt8]]) {
        var removed: [[UInt8]] = []
        for channel in channels where self.subscribedChannels.remove(channel) != nil {
            removed.append(channel)
        }
        guard self.acceptsCommands else { return }
        self.sendSubscription("UNSUBSCRIBE", removed)
    }

    /// Subscribes to shard channels (`SSUBSCRIBE`, sharded pub/sub of Redis 7), remembering them as `subscribe` does.
    /// In a Redis Cluster a shard channel lives in its hash slot, as a key does: subscribe on the node serving it.
    ///
    /// - Parameter channels: the channel names; ones already subscribed are skipped.
    public func subscribeShard(_ channels: [[UInt8]]) {
        self.isSubscriber = true
        var added: [[UInt8]] = []
        for channel in channels where self.shardChannels.insert(channel).inserted {
            added.append(channel)
        }
        guard self.acceptsCommands else { return }
        self.sendSubscription("SSUBSCRIBE", added)
    }

    /// Unsubscribes from shard channels (`SUNSUBSCRIBE`) and forgets them.
    ///
    /// - Parameter channels: the channel names; ones not subscribed are skipped.
    public func unsubscribeShard(_ channels: [[UInt8]]) {
        var removed: [[UInt8]] = []
        for channel in channels where self.shardChannels.remove(channel) != nil {
            removed.append(channel)
        }
        guard self.acceptsCommands else { return }
        self.sendSubscription("SUNSUBSCRIBE", removed)
    }
}

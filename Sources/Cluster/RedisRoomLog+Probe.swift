import EventIO
import Redis
import Rooms

/// The probe of this node's own subscription: every `probeIntervalMilliseconds` the node publishes a message on
/// a probe channel it subscribes to, the way a room's entries are published (a shard channel; one per primary in a
/// Redis Cluster), and expects it back through the subscription within the command timeout. A connection that is up
/// yet delivers nothing (pub/sub detached, a half-open socket, a proxy that stopped forwarding) passes every
/// `PING`, and only such a probe finds it.
///
/// A probe that does not come back in time marks the subscription dead: `subscriptionHealth` says why (`/readyz` answers 503),
/// and the node reconnects its subscription, after which the rooms' entries published meanwhile are read from their
/// streams. The node is ready again once a probe comes back.
extension RedisRoomLog {
    /// Runs `probeTick` every `probeIntervalMilliseconds` (never when 0).
    func scheduleProbe() {
        let interval = self.configuration.probeIntervalMilliseconds
        guard interval > 0 else { return }
        self.probeTimer = self.loop.scheduleTimer(afterNanoseconds: UInt64(interval) * 1_000_000) { [weak self] in
            guard let self, self.isRunning else { return }
            self.probeTick()
            self.scheduleProbe()
        }
    }

    /// How long a probe has to come back, in milliseconds: the command timeout.
    var probeTimeoutMilliseconds: Int64 { max(1, self.configuration.redis.commandTimeoutMilliseconds) }

    /// Fails a probe whose time ran out, then sends the next one, when both connections are up and the probe
    /// channels were subscribed before this tick (a subscription still on its way would lose the probe).
    func probeTick() {
        let now = EventLoop.monotonicNow()
        if let probe = self.probe {
            guard now >= probe.deadline else { return }
            self.probe = nil
            self.probeFailed()
        }
        guard self.commands.isConnected, self.subscriber.isConnected else { return }
        let wanted = self.wantedProbeChannels()
        let added = wanted.subtracting(self.probeChannels)
        let removed = self.probeChannels.subtracting(wanted)
        self.probeChannels = wanted
        if !removed.isEmpty { self.subscriber.unsubscribeShard(Array(removed)) }
        if !added.isEmpty { self.subscriber.subscribeShard(Array(added)) }
        guard added.isEmpty, !wanted.isEmpty, !self.subscriberJustConnected else {
            self.subscriberJustConnected = false
            return
        }
        self.probesSent += 1
        let payload = Array("\(self.configuration.nodeID) \(self.probesSent)".utf8)
        self.probe = (payload, wanted, now &+ UInt64(self.probeTimeoutMilliseconds) * 1_000_000)
        let publish = Array(self.commands.shardPublishCommand.utf8)
        for channel in wanted {
            self.commands.send([publish, channel, payload]) { [weak self] result in
                // A publish that failed says nothing of the subscription: that probe does not count.
                guard let self, case .failure = result, self.probe?.payload == payload else { return }
                self.probe = nil
            }
        }
    }

    /// A message on a probe channel: the probe on its way, back on one of its channels.
    func receivedProbe(channel: [UInt8], payload: [UInt8]) {
        guard var probe = self.probe, probe.payload == payload else { return }
        probe.channels.remove(channel)
        guard probe.channels.isEmpty else {
            self.probe = probe
            return
        }
        self.probe = nil
        guard !self.follower.statistics.subscriptionLive else { return }
        self.follower.statistics.subscriptionLive = true
        self.subscriptionHealth.setNotReady(nil)
        self.log?("the subscription to the shared log delivers this node's probes again; ready")
    }

    /// A probe did not come back in time: not ready, and the subscription is made again.
    func probeFailed() {
        let reason =
            "the subscription to the shared log did not deliver this node's probe within "
            + "\(self.probeTimeoutMilliseconds) ms; resubscribing"
        self.follower.statistics.probeFailures += 1
        self.follower.statistics.subscriptionLive = false
        self.follower.statistics.resubscriptions += 1
        self.subscriptionHealth.setNotReady(reason)
        self.log?(reason)
        self.subscriber.stop()
        self.subscriber.start()
    }

    /// The probe channels: one against a single server; in a Redis Cluster one in a slot of each primary (as the
    /// slot map has them), so every subscription connection is probed.
    func wantedProbeChannels() -> Set<[UInt8]> {
        let node = self.configuration.nodeID
        guard self.commands.isCluster else { return [Array(self.keys.probeChannel(node: node, 0).utf8)] }
        guard let map = self.commands.slotMap else { return [] }
        let primaries = Set(map.primaries)
        var found: [RedisNodeAddress: [UInt8]] = [:]
        // Each try lands on a primary with the share of slots it serves: a few tries per primary.
        for index in 0..<(1_000 * max(1, primaries.count)) where found.count < primaries.count {
            let channel = Array(self.keys.probeChannel(node: node, index).utf8)
            if let primary = map.primary(of: RedisKeySlot.slot(of: channel)), found[primary] == nil {
                found[primary] = channel
            }
        }
        return Set(found.values)
    }
}

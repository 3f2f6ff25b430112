import ClusterCore
import ClusterTesting
import EventIO
import Foundation
import Redis
import Rooms
import Testing

@testable import Cluster

/// What a node's shared log delivered, recorded on its loop.
private final class Delivered: SharedRoomLogDelegate {
    var entries: [String: [RoomLogEntry]] = [:]

    func sharedLogLoaded(room: String, checkpoint: RoomReplica?, entries: [RoomLogEntry]) {
        self.entries[room, default: []] += entries
    }
    func sharedLogReloading(room: String) {}
    func sharedLogReloadFailed(room: String) {}
    func sharedLogReceived(room: String, entries: [RoomLogEntry]) { self.entries[room, default: []] += entries }
    func sharedLogFailed(room: String) {}
    func sharedLogDisconnect(uid: String, reason: String?) {}
    func sharedLogLeaseLost() {}
    func replica(of room: String, at sequence: UInt64) -> RoomReplica? { nil }
}

/// The probe of a node's own subscription against a real Redis: a subscription that stays connected yet delivers
/// nothing (behind a proxy that stopped forwarding) is found, the node reports not ready and resubscribes until it is
/// ready again, and the rooms' entries flow through the subscription again; a subscription Redis kills comes back too.
@Suite(.serialized) struct SubscriptionProbeTests {
    private struct Node {
        let harness: LoopHarness
        let log: RedisRoomLog
        let delivered: Delivered

        func on<T>(_ body: @escaping () -> T) -> T { self.harness.onLoop(body) }

        /// The sequence numbers delivered for `room`.
        func sequences(_ room: String) -> [UInt64] { self.on { self.delivered.entries[room]?.map(\.sequence) ?? [] } }
    }

    /// A node on a loop of its own; polling the rooms' sequence numbers is off (an hour), so that only the
    /// subscription delivers other nodes' entries.
    private static func node(_ id: String, port: Int, probeMilliseconds: Int64) throws -> Node {
        let harness = try LoopHarness()
        let delivered = Delivered()
        var redis = RedisClientConfiguration()
        redis.port = port
        redis.commandTimeoutMilliseconds = 300
        redis.reconnectInitialDelayMilliseconds = 20
        redis.reconnectMaximumDelayMilliseconds = 200
        let log = harness.onLoop { () -> RedisRoomLog in
            var configuration = ClusterConfiguration(redis: redis, nodeID: id)
            configuration.keyPrefix = "t"
            configuration.pollIntervalMilliseconds = 3_600_000
            configuration.probeIntervalMilliseconds = probeMilliseconds
            let rules = SharedRoomRules(
                roomCapacity: 100, reservedSeats: 0, reconnectGraceMilliseconds: 15_000, history: HistoryRetention())
            let log = RedisRoomLog(configuration: configuration, rules: rules, loop: harness.loop)
            log.follower.delegate = delivered
            log.start()
            return log
        }
        #expect(waitUntil(seconds: 10) { harness.onLoop { log.isAvailable } })
        return Node(harness: harness, log: log, delivered: delivered)
    }

    private static func stop(_ node: Node) {
        node.on { node.log.stop() }
        node.harness.shutDown()
    }

    /// Appends a note to `room` through `node` and waits for its sequence number.
    private static func note(_ room: String, _ text: String, through node: Node) throws -> UInt64? {
        let box = ResultBox<Result<UInt64, LogAppendFailure>>()
        let proposal = LogProposal(
            room: room, events: [ProposedEvent(.metadataChanged(changes: ["n": text]), actor: nil)])
        node.on { node.log.append(proposal) { box.put($0) } }
        return try? #require(box.wait(seconds: 10)).get()
    }

    @Test func aSubscriptionThatSilentlyStopsDeliveringIsFoundReportedAndMadeAgain() throws {
        let redis = try RedisServerProcess()
        defer { redis.shutDown() }
        let proxy = try SilencingProxy(forwardingTo: redis.port)
        defer { proxy.close() }
        let watcher = try Self.node("A", port: proxy.port, probeMilliseconds: 100)
        defer { Self.stop(watcher) }
        let writer = try Self.node("B", port: redis.port, probeMilliseconds: 0)
        defer { Self.stop(writer) }
        watcher.on { watcher.log.follow("r") }
        #expect(waitUntil(seconds: 5) { watcher.on { watcher.delivered.entries["r"] != nil } })
        #expect(try Self.note("r", "one", through: writer) == 1)
        #expect(waitUntil(seconds: 5) { watcher.sequences("r") == [1] })
        #expect(watcher.log.subscriptionHealth.notReadyReason == nil)
        // What the gateway's /readyz reads.
        #expect((watcher.log as any SharedLogService).health === watcher.log.subscriptionHealth)

        // The watcher's subscription stays connected and delivers nothing; its commands still work.
        #expect(proxy.silenceSubscribers() == 1)
        #expect(try Self.note("r", "two", through: writer) == 2)
        #expect(waitUntil(seconds: 5) { watcher.log.subscriptionHealth.notReadyReason != nil })
        let reason = watcher.log.subscriptionHealth.notReadyReason ?? ""
        #expect(reason.contains("did not deliver this node's probe within 300 ms"))
        #expect(watcher.on { watcher.log.statistics.probeFailures } >= 1)

        // Not ready as long as nothing comes through, whatever connection it subscribes on.
        let resubscribed = watcher.on { watcher.log.statistics.resubscriptions }
        #expect(waitUntil(seconds: 5) { watcher.on { watcher.log.statistics.resubscriptions } > resubscribed })
        #expect(watcher.log.subscriptionHealth.notReadyReason != nil)
        #expect(watcher.on { !watcher.log.statistics.subscriptionLive })

        // Resubscribed once the path delivers again: ready, the missed entry read back, new ones delivered.
        proxy.resumeSubscribers()
        #expect(waitUntil(seconds: 5) { watcher.log.subscriptionHealth.notReadyReason == nil })
        #expect(watcher.on { watcher.log.statistics.subscriptionLive })
        #expect(waitUntil(seconds: 5) { watcher.sequences("r") == [1, 2] })
        #expect(try Self.note("r", "three", through: writer) == 3)
        #expect(waitUntil(seconds: 5) { watcher.sequences("r") == [1, 2, 3] })
    }

    @Test func aSubscriptionRedisKillsComesBackAndTheProbesConfirmIt() throws {
        let redis = try RedisServerProcess()
        defer { redis.shutDown() }
        let watcher = try Self.node("A", port: redis.port, probeMilliseconds: 100)
        defer { Self.stop(watcher) }
        let writer = try Self.node("B", port: redis.port, probeMilliseconds: 0)
        defer { Self.stop(writer) }
        watcher.on { watcher.log.follow("r") }
        #expect(waitUntil(seconds: 5) { watcher.on { watcher.delivered.entries["r"] != nil } })
        // Probes go round: the watcher's subscription is confirmed before the kill.
        #expect(waitUntil(seconds: 5) { watcher.on { watcher.log.probesSent >= 3 && watcher.log.probe == nil } })

        let box = ResultBox<RESPValue>()
        writer.on {
            writer.log.commands.send(["CLIENT", "KILL", "TYPE", "pubsub"]) {
                if case .success(let v) = $0 { box.put(v) }
            }
        }
        // The watcher's subscription and its probe channel's, at least (the writer subscribes too).
        guard case .integer(let killed)? = box.wait(seconds: 5) else {
            Issue.record("CLIENT KILL did not answer")
            return
        }
        #expect(killed >= 1)
        #expect(try Self.note("r", "one", through: writer) == 1)
        #expect(waitUntil(seconds: 5) { watcher.sequences("r") == [1] })
        let sent = watcher.on { watcher.log.probesSent }
        #expect(waitUntil(seconds: 5) { watcher.on { watcher.log.probesSent > sent + 2 && watcher.log.probe == nil } })
        #expect(watcher.log.subscriptionHealth.notReadyReason == nil)
        // The writer's own subscription was killed too: it appends again once it has made it again (on a loaded
        // machine that can come after the watcher's).
        #expect(waitUntil(seconds: 5) { writer.on { writer.log.subscriptionHealth.notReadyReason == nil } })
        #expect(try Self.note("r", "two", through: writer) == 2)
        #expect(waitUntil(seconds: 5) { watcher.sequences("r") == [1, 2] })
    }
}

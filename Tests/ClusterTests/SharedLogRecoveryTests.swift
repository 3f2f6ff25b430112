import ClusterCore
import ClusterTesting
import EventIO
import Foundation
import Redis
import Rooms
import RoomsTesting
import Synchronization
import Testing
import TokenAuth

@testable import Cluster

#if canImport(Glibc)
import Glibc
#endif

/// A stand-in for a Redis that is still reading its data back after a restart: the first `SCRIPT LOAD` gets the
/// `LOADING` error Redis answers then, later ones the script's digest; subscriptions are confirmed; anything else
/// gets `+OK`.
private final class LoadingRedis: Sendable {
    let scriptLoads = Atomic<Int>(0)

    /// Answers the commands on one connection until it closes.
    func serve(_ fd: Int32) {
        var parser = RESPParser()
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += buffer[0..<count]
            while case .value(let command, let consumed) = received.withUnsafeBytes({ parser.parse($0) }) {
                received.removeFirst(consumed)
                ScriptedServer.write(fd, self.reply(to: command))
            }
        }
        Glibc.close(fd)
    }

    private func reply(to command: RESPValue) -> String {
        guard case .array(let items?) = command else { return "-ERR not a command\r\n" }
        let words = items.compactMap { item -> String? in
            guard case .bulkString(let bytes?) = item else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }
        switch words.first?.uppercased() {
        case "SCRIPT":
            if self.scriptLoads.add(1, ordering: .relaxed).newValue == 1 {
                return "-LOADING Redis is loading the dataset in memory\r\n"
            }
            return "$40\r\n" + String(repeating: "a", count: 40) + "\r\n"
        case "SUBSCRIBE":
            let channel = words.count > 1 ? words[1] : ""
            return "*3\r\n$9\r\nsubscribe\r\n$\(channel.utf8.count)\r\n\(channel)\r\n:1\r\n"
        case "EVALSHA":
            return "*2\r\n:0\r\n:1\r\n"
        default:
            return "+OK\r\n"
        }
    }
}

@Suite struct SharedLogRecoveryTests {
    @Test func aScriptRefusedWhileRedisLoadsItsDataIsLoadedAgainOnceItAnswers() throws {
        let redis = LoadingRedis()
        let server = try ScriptedServer { fd in
            // Each connection (commands, subscriptions) is served on its own thread.
            let connection = dup(fd)
            Thread { redis.serve(connection) }.start()
        }
        defer { server.close() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        var configuration = RedisClientConfiguration()
        configuration.port = server.port
        let transport = InMemoryTransport()
        let verifier = try TokenVerifier(keys: [try TokenKey(secret: "cluster-recovery-test-secret-0123456789")])
        let sharedLog = harness.onLoop { () -> RedisRoomLog in
            let gateway = RoomsNode(
                configuration: RoomsConfiguration(), verifier: verifier, transport: transport,
                clock: { 1_764_460_800_000 })
            let log = RedisRoomLog(
                configuration: ClusterConfiguration(redis: configuration),
                rules: SharedRoomRules(gateway.configuration), loop: harness.loop)
            gateway.sharedLog = log
            log.start()
            return log
        }
        #expect(waitUntil(seconds: 5) { harness.onLoop { sharedLog.isAvailable } })
        #expect(redis.scriptLoads.load(ordering: .relaxed) >= 2)
        harness.onLoop { sharedLog.stop() }
    }
}

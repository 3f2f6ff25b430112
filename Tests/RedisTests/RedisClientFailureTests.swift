import ClusterTesting
import EventIO
import Foundation
import Redis
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The client against servers that misbehave in ways a real Redis does not.
@Suite(.serialized) struct RedisClientFailureTests {
    private static func configuration(port: Int) -> RedisClientConfiguration {
        var configuration = RedisClientConfiguration()
        configuration.port = port
        configuration.reconnectInitialDelayMilliseconds = 20
        configuration.reconnectMaximumDelayMilliseconds = 100
        configuration.commandTimeoutMilliseconds = 5_000
        return configuration
    }

    @Test func aMalformedReplyFailsTheCommandAndTheClientReconnects() throws {
        let server = try ScriptedServer { fd in
            let ping = "*1\r\n$4\r\nPING\r\n"
            guard ScriptedServer.read(fd, atLeast: ping.utf8.count) == Array(ping.utf8) else { return }
            ScriptedServer.write(fd, "!not resp\r\n")
            _ = ScriptedServer.read(fd, atLeast: Int.max)
        }
        defer { server.close() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        let probe = ClientProbe(harness, Self.configuration(port: server.port))
        defer { probe.stop() }
        #expect(probe.startAndWaitUntilConnected())

        let error = try #require(probe.request(["PING"])?.error)
        #expect(error.description.hasPrefix("Redis protocol error: invalid RESP at byte 0"))
        #expect(error.isConnectionFailure)
        #expect(probe.errors.first == error)
        #expect(waitUntil { probe.connectCount >= 2 && server.acceptedCount >= 2 })
    }

    @Test func aReplyLargerThanTheBoundFailsTheCommandAndResetsTheConnection() throws {
        // An array of bulk strings each within the bulk bound, together over the reply bound, and never finished.
        let server = try ScriptedServer { fd in
            let ping = "*1\r\n$4\r\nPING\r\n"
            guard ScriptedServer.read(fd, atLeast: ping.utf8.count) == Array(ping.utf8) else { return }
            let bulk = "$300\r\n" + String(repeating: "x", count: 300) + "\r\n"
            ScriptedServer.write(fd, "*10\r\n" + String(repeating: bulk, count: 4))
            _ = ScriptedServer.read(fd, atLeast: Int.max)
        }
        defer { server.close() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        var configuration = Self.configuration(port: server.port)
        configuration.maximumReplyBytes = 1000
        let probe = ClientProbe(harness, configuration)
        defer { probe.stop() }
        #expect(probe.startAndWaitUntilConnected())

        let error = try #require(probe.request(["PING"])?.error)
        #expect(error.description == "Redis protocol error: more than 1000 bytes received and not yet used")
        #expect(error.isConnectionFailure)
    }

    @Test func aReplyThatNoCommandWaitedForResetsTheConnection() throws {
        let server = try ScriptedServer { fd in
            ScriptedServer.write(fd, "+OK\r\n")
            _ = ScriptedServer.read(fd, atLeast: Int.max)
        }
        defer { server.close() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        let probe = ClientProbe(harness, Self.configuration(port: server.port))
        defer { probe.stop() }
        probe.start()

        #expect(waitUntil { probe.errors.count >= 2 })
        #expect(probe.errors.first?.description.contains("a reply arrived that no command waited for") == true)
        #expect(server.acceptedCount >= 2)
    }

    @Test func aConnectThatGetsNoAnswerFailsAfterTheConnectTimeout() throws {
        // A listener that never accepts, with its accept queue filled: further SYNs go unanswered.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(listener) }
        var raw = sockaddr_in()
        raw.sin_family = sa_family_t(AF_INET)
        raw.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &raw) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        try #require(bound && listen(listener, 0) == 0)
        let port = Int(UInt16(bigEndian: raw.sin_port))
        var fillers: [Int32] = []
        defer { for filler in fillers { close(filler) } }
        for _ in 0..<4 {
            fillers.append(try Socket.connect(to: try #require(SocketAddress(ipv4: "127.0.0.1", port: UInt16(port)))))
        }
        usleep(100_000)

        let harness = try LoopHarness()
        defer { harness.shutDown() }
        var configuration = Self.configuration(port: port)
        configuration.connectTimeoutMilliseconds = 200
        let probe = ClientProbe(harness, configuration)
        defer { probe.stop() }
        let started = Date()
        probe.start()
        #expect(waitUntil(seconds: 5) { !probe.errors.isEmpty })
        let elapsed = Date().timeIntervalSince(started)
        #expect(probe.errors.first?.description.contains("no answer within 200 ms") == true)
        #expect(elapsed >= 0.19 && elapsed < 2)
        #expect(!probe.states.contains(.connected))
    }
}

import EventIO
import RollcallServer
import Rooms
import Testing
import TokenAuth
import WebSocketServer

@testable import RollcallBench

/// A gateway (`GatewayRuntime` and `Server`, as `rollcall serve` runs them) on 127.0.0.1, in this process.
final class RosterTestGateway {
    static let key = "test:rollcall-bench-tests-secret-0123456789abcdef"
    let runtime: GatewayRuntime
    let server: Server
    let address: SocketAddress

    init(patchWindowMilliseconds: Int64 = 20) throws {
        let colon = Self.key.firstIndex(of: ":")!
        let key = try TokenKey(
            keyID: String(Self.key[..<colon]), secret: String(Self.key[Self.key.index(after: colon)...]))
        var rooms = RoomsConfiguration()
        rooms.patchWindowMilliseconds = patchWindowMilliseconds
        self.runtime = try GatewayRuntime(configuration: rooms, verifier: try TokenVerifier(keys: [key]))
        var configuration = ServerConfiguration()
        configuration.listen = [SocketAddress(parsing: "127.0.0.1:0")!]
        configuration.eventLoopCount = 1
        configuration.shutdownGracePeriodMilliseconds = 300
        configuration.closeTimeoutMilliseconds = 1_000
        self.server = Server(configuration: configuration, routes: [self.runtime.route])
        self.runtime.start()
        do {
            try self.server.start()
        } catch {
            self.runtime.stop()
            throw error
        }
        self.address = self.server.localAddresses[0]
    }

    func options() throws -> BenchOptions {
        var options = BenchOptions(scenario: .roster, target: try BenchTarget(url: "ws://\(self.address)/v1/ws"))
        options.key = Self.key
        options.duration = 1.5
        options.participants = 8
        options.subscribers = 20
        options.rate = 40
        options.replyTimeout = 3
        return options
    }

    func stop() {
        self.server.shutDownGracefully()
        self.runtime.stop()
    }
}

@Suite("Roster scenario against an in-process gateway", .serialized)
struct RosterBenchTests {
    @Test("Every observer converges to the roster showing every participant's last change")
    func observersConverge() throws {
        let gateway = try RosterTestGateway()
        defer { gateway.stop() }
        let report = try BenchRunner.run(try gateway.options())
        #expect(report.counters.opened == 28)
        #expect(report.counters.connectFailures == 0)
        #expect(report.counters.errors == 0, "\(report.errorSamples)")
        #expect(report.counters.sent > 20)
        #expect(report.counters.acknowledged == report.counters.sent)
        #expect(report.counters.received > 0)
        #expect(report.counters.mismatched == 0, "\(report.errorSamples)")
        #expect(report.latency.count > 0)
        let convergence = try #require(report.convergence)
        #expect(convergence.converged == 20)
        #expect(convergence.divergent == 0)
        #expect(convergence.distinctRosters == 1)
        #expect(convergence.stateMismatches == 0)
        #expect(convergence.isConverged)
        #expect(convergence.sequence > 0 && convergence.checksum.count == 16)
    }

    @Test("Observers spread over two client loops converge too")
    func observersConvergeOverTwoLoops() throws {
        let gateway = try RosterTestGateway(patchWindowMilliseconds: 50)
        defer { gateway.stop() }
        var options = try gateway.options()
        options.threads = 2
        options.participants = 5
        options.subscribers = 31
        let report = try BenchRunner.run(options)
        #expect(report.counters.opened == 36)
        #expect(report.counters.errors == 0, "\(report.errorSamples)")
        #expect(report.counters.mismatched == 0, "\(report.errorSamples)")
        let convergence = try #require(report.convergence)
        #expect(convergence.converged == 31)
        #expect(convergence.isConverged)
    }

    @Test("With compression every connection agrees, the changes go out compressed and the observers converge")
    func observersConvergeWithCompression() throws {
        let gateway = try RosterTestGateway()
        defer { gateway.stop() }
        var options = try gateway.options()
        options.compression = true
        let report = try BenchRunner.run(options)
        #expect(report.counters.opened == 28)
        #expect(report.counters.errors == 0, "\(report.errorSamples)")
        #expect(report.counters.compressionAgreed == 28)
        #expect(report.counters.sent > 20)
        // Joins and state changes are over the 64-byte minimum; the server acknowledges what it inflated.
        #expect(report.counters.compressedSent >= 28 + report.counters.sent)
        #expect(report.counters.acknowledged == report.counters.sent)
        #expect(report.counters.mismatched == 0, "\(report.errorSamples)")
        let convergence = try #require(report.convergence)
        #expect(convergence.converged == 20)
        #expect(convergence.isConverged)
    }

    @Test("The report says how the observers ended")
    func reportShowsConvergence() throws {
        let gateway = try RosterTestGateway()
        defer { gateway.stop() }
        var options = try gateway.options()
        options.duration = 0.5
        options.subscribers = 3
        let report = try BenchRunner.run(options)
        #expect(report.text.contains("convergence: OK: 3 observers"))
        #expect(report.json["converged"] == true)
        #expect(report.json["observersDivergent"]?.intValue == 0)
    }
}

import Glibc
import Testing

@testable import RollcallBench

@Suite("Soak run against an in-process gateway", .serialized)
struct SoakLiveTests {
    @Test("A short soak connects, joins, changes states, closes and drops, and samples the server as it goes")
    func aShortSoakRunsItsActionsAndSamples() throws {
        let gateway = try RosterTestGateway()
        defer { gateway.stop() }
        var options = SoakOptions(target: try BenchTarget(url: "ws://\(gateway.address)/v1/ws"))
        options.key = RosterTestGateway.key
        options.serverPID = getpid()
        options.duration = 4
        options.interval = 1
        options.connections = 8
        options.rooms = 2
        options.rate = 50
        options.timeout = 2
        var lines: [String] = []
        let report = try SoakRunner.run(options) { lines.append($0) }

        let counts = Dictionary(uniqueKeysWithValues: report.counts)
        #expect(counts["connects", default: 0] >= 8, "\(counts)")
        #expect(counts["connectFailures"] == nil, "\(counts)")
        #expect(counts["errorsReceived", default: 0] == 0, "\(counts)")
        #expect(counts["messagesReceived", default: 0] > 0, "\(counts)")
        #expect(counts["stateChanges", default: 0] > 0, "\(counts)")
        #expect(counts.keys.allSatisfy { !$0.hasPrefix("closedByServer") }, "\(counts)")
        // The first sample, one a second, and the last; each reported as a line.
        #expect(report.samples.count >= 4)
        #expect(lines.count == report.samples.count)
        #expect(report.samples.allSatisfy { $0.rssBytes != nil && $0.fds != nil })
        // The bot's rooms query is answered in the samples taken while the clients are in.
        #expect(report.samples.dropFirst().contains { ($0.rooms ?? 0) > 0 && ($0.roster ?? 0) > 0 })
    }
}

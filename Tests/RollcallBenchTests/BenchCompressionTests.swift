import Testing

@testable import RollcallBench

@Suite("Load generator compression against scripted servers", .serialized)
struct BenchCompressionTests {
    /// A text frame with FIN and RSV1 set holding "hello" compressed (RFC 7692 §7.2.3.1).
    private static let compressedHello: [UInt8] = [0xC1, 0x07, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]

    /// Runs one idle connection for half a second against `server`.
    private func runIdle(against server: ScriptedUpgradeServer, compression: Bool) throws -> BenchReport {
        var options = BenchOptions(scenario: .idle, target: try BenchTarget(url: "ws://127.0.0.1:\(server.port)/"))
        options.connections = 1
        options.duration = 0.5
        options.compression = compression
        return try BenchRunner.run(options)
    }

    @Test("With --compression the upgrade request offers permessage-deflate")
    func requestOffersCompression() throws {
        let server = try ScriptedUpgradeServer(extensions: "permessage-deflate", frames: [])
        defer { server.close() }
        let report = try self.runIdle(against: server, compression: true)
        #expect(report.counters.opened == 1)
        #expect(report.counters.compressionAgreed == 1)
        let head = try #require(server.requestHeads.first)
        #expect(head.contains("\r\nSec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"))
    }

    @Test("Without --compression nothing is offered, and a server that agrees anyway fails the upgrade")
    func unofferedCompressionFailsTheUpgrade() throws {
        let server = try ScriptedUpgradeServer(extensions: "permessage-deflate", frames: [])
        defer { server.close() }
        let report = try self.runIdle(against: server, compression: false)
        #expect(report.counters.opened == 0)
        #expect(report.counters.connectFailures == 1)
        #expect(report.errorSamples.first?.contains("not offered") == true, "\(report.errorSamples)")
        let head = try #require(server.requestHeads.first)
        #expect(!head.lowercased().contains("sec-websocket-extensions"))
    }

    @Test("A window size out of range in the answer fails the upgrade")
    func badParameterFailsTheUpgrade() throws {
        let server = try ScriptedUpgradeServer(extensions: "permessage-deflate; server_max_window_bits=16", frames: [])
        defer { server.close() }
        let report = try self.runIdle(against: server, compression: true)
        #expect(report.counters.opened == 0)
        #expect(report.counters.connectFailures == 1)
        #expect(report.errorSamples.first?.contains("server_max_window_bits") == true, "\(report.errorSamples)")
    }

    @Test("A server that declines compression leaves the connection open and uncompressed")
    func declinedCompressionIsFine() throws {
        let server = try ScriptedUpgradeServer(extensions: nil, frames: [])
        defer { server.close() }
        let report = try self.runIdle(against: server, compression: true)
        #expect(report.counters.opened == 1)
        #expect(report.counters.errors == 0, "\(report.errorSamples)")
        #expect(report.counters.compressionAgreed == 0)
    }

    @Test("A compressed frame on a connection without agreed compression fails the connection")
    func rsv1WithoutCompressionFailsTheConnection() throws {
        let server = try ScriptedUpgradeServer(extensions: nil, frames: Self.compressedHello)
        defer { server.close() }
        let report = try self.runIdle(against: server, compression: true)
        #expect(report.counters.opened == 1)
        #expect(report.counters.errors == 1)
        #expect(report.counters.compressedReceived == 0)
        #expect(report.errorSamples.first?.contains("RSV1 set without agreed permessage-deflate") == true)
    }

    @Test("RSV1 on a control frame fails the connection even with compression agreed")
    func rsv1OnAControlFrameFailsTheConnection() throws {
        // A ping with FIN and RSV1 set and no payload.
        let server = try ScriptedUpgradeServer(extensions: "permessage-deflate", frames: [0xC9, 0x00])
        defer { server.close() }
        let report = try self.runIdle(against: server, compression: true)
        #expect(report.counters.opened == 1)
        #expect(report.counters.errors == 1)
        #expect(report.errorSamples.first?.contains("RSV1 set on a ping frame") == true, "\(report.errorSamples)")
    }

    @Test("A compressed message is inflated and counted, and corrupt deflate data fails the connection")
    func compressedMessagesAreInflated() throws {
        // "hello" compressed, then a binary frame whose first deflate block has the reserved type 3.
        let frames = Self.compressedHello + [0xC2, 0x02, 0xFF, 0xFF]
        let extensions = "permessage-deflate; server_no_context_takeover"
        let server = try ScriptedUpgradeServer(extensions: extensions, frames: frames)
        defer { server.close() }
        let report = try self.runIdle(against: server, compression: true)
        #expect(report.counters.opened == 1)
        #expect(report.counters.compressedReceived == 1)
        #expect(report.counters.compressedReceivedWireBytes == 7)
        #expect(report.counters.compressedReceivedInflatedBytes == 5)
        #expect(report.counters.errors == 1)
        #expect(report.errorSamples.first?.contains("invalid deflate data") == true, "\(report.errorSamples)")
    }
}

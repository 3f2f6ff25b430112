import Testing
import WebSocketDeflate

@testable import RollcallBench

@Suite("Load generator upgrade check")
struct BenchUpgradeCheckTests {
    private static let accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    private func check(_ extensions: [String], offered: Bool = true) throws -> PerMessageDeflateClientParameters? {
        var head =
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(Self.accept)\r\n"
        for value in extensions { head += "Sec-WebSocket-Extensions: \(value)\r\n" }
        head += "\r\n"
        return try BenchConnection.checkUpgradeResponse(
            ArraySlice(Array(head.utf8)),
            expectedAccept: Self.accept,
            offeredCompression: offered
        )
    }

    @Test("An answer without extensions is an uncompressed upgrade, offered or not")
    func noExtensionsIsUncompressed() throws {
        #expect(try self.check([]) == nil)
        #expect(try self.check([], offered: false) == nil)
    }

    @Test("The parameters the server agreed to are read, over several header lines too")
    func agreedParametersAreRead() throws {
        let agreed = try #require(try self.check(["permessage-deflate; client_no_context_takeover"]))
        #expect(agreed.clientNoContextTakeover)
        #expect(!agreed.serverNoContextTakeover)
        #expect(agreed.serverMaxWindowBits == 15)
        let split = try #require(try self.check(["", "permessage-deflate; server_max_window_bits=12"]))
        #expect(split.serverMaxWindowBits == 12)
    }

    @Test("An extension that was not offered is refused")
    func extensionNotOfferedIsRefused() {
        #expect(throws: BenchError.self) { try self.check(["permessage-deflate"], offered: false) }
        #expect(throws: BenchError.self) { try self.check(["x-webkit-deflate-frame"]) }
        #expect(throws: BenchError.self) { try self.check(["permessage-deflate", "permessage-deflate"]) }
    }

    @Test("An unknown, repeated or out-of-range parameter is refused")
    func badParametersAreRefused() {
        #expect(throws: BenchError.self) { try self.check(["permessage-deflate; mystery"]) }
        #expect(throws: BenchError.self) {
            try self.check(["permessage-deflate; client_no_context_takeover; client_no_context_takeover"])
        }
        #expect(throws: BenchError.self) { try self.check(["permessage-deflate; server_max_window_bits=7"]) }
        #expect(throws: BenchError.self) { try self.check(["permessage-deflate; client_max_window_bits"]) }
        #expect(throws: BenchError.self) { try self.check(["permessage-deflate; server_no_context_takeover=yes"]) }
    }

    @Test("A wrong Sec-WebSocket-Accept is still refused")
    func wrongAcceptIsRefused() {
        let head = "HTTP/1.1 101 Switching Protocols\r\nSec-WebSocket-Accept: nope\r\n\r\n"
        #expect(throws: BenchError.self) {
            try BenchConnection.checkUpgradeResponse(
                ArraySlice(Array(head.utf8)),
                expectedAccept: Self.accept,
                offeredCompression: true
            )
        }
    }
}

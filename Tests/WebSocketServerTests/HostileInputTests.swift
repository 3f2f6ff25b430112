import EventIO
import Foundation
import Glibc
import Testing
import WebSocketDeflate
import WebSocketServer
import WebSocketTestSupport

/// A second client that keeps doing echo round trips while another connection misbehaves.
final class Bystander {
    let client: TestClient
    private var round = 0

    init(_ server: LiveServer, tls: TLSContext? = nil) throws {
        self.client = try server.openClient(tls: tls)
    }

    /// One echo round trip; true when the echo came back unchanged.
    func isServed() -> Bool {
        self.round += 1
        let text = "bystander round \(self.round)"
        return (try? self.client.echo(text: text)) == text
    }
}

/// Misbehaving clients get the exact close code or HTTP status, and nobody else notices.
@Suite("Hostile input over live sockets")
struct HostileInputTests {
    /// Opens an attacker, runs `attack` (which returns the attacker's close code), and checks that a bystander is
    /// served before, during and after, and that the server then closes the attacker's TCP connection.
    private func expectClose(
        _ expected: UInt16,
        configure: (inout ServerConfiguration) -> Void = { _ in },
        extraHeaders: [(String, String)] = [],
        attack: (TestClient, Bystander) throws -> Void
    ) throws {
        try LiveServer.with(configure) { server in
            let bystander = try Bystander(server)
            #expect(bystander.isServed())
            let attacker = try server.openClient(extraHeaders: extraHeaders)
            try attack(attacker, bystander)
            #expect(bystander.isServed())
            #expect(try attacker.readCloseCode() == expected)
            #expect(attacker.serverClosesConnection(within: 2))
            #expect(bystander.isServed())
        }
    }

    /// Sends a raw request and checks the status, that the connection is closed, and that a bystander is served.
    private func expectStatus(_ expected: Int, for request: [UInt8]) throws {
        try LiveServer.with { server in
            let bystander = try Bystander(server)
            let attacker = try TestClient(connectingTo: server.address)
            try attacker.send(request)
            #expect(bystander.isServed())
            let response = try attacker.readResponseHead()
            #expect(response.status == expected)
            #expect(attacker.serverClosesConnection(within: 2))
            #expect(bystander.isServed())
        }
    }

    @Test("An unmasked client frame fails the connection with 1002")
    func unmaskedFrameIsProtocolError() throws {
        try self.expectClose(1002) { attacker, _ in
            try attacker.sendFrame(.text, Array("not masked".utf8), masked: false)
        }
    }

    @Test("A frame header announcing more than the frame limit gets 1009 before any payload is sent")
    func oversizedFrameHeaderIsRejectedBeforePayload() throws {
        try self.expectClose(1009) { attacker, bystander in
            // 2 MiB announced against the 1 MiB default, then nothing: the server must not wait for the payload.
            let length = UInt64(2 << 20)
            var header: [UInt8] = [0x82, 0x80 | 127]
            for byte in 0..<8 { header.append(UInt8(truncatingIfNeeded: length >> UInt64(56 - 8 * byte))) }
            header += [0x11, 0x22, 0x33, 0x44]
            try attacker.send(header)
            #expect(bystander.isServed())
        }
    }

    @Test("A compressed message that inflates past the message limit gets 1009")
    func deflateBombIsMessageTooBig() throws {
        try LiveServer.with { server in
            let bystander = try Bystander(server)
            let attacker = try TestClient(connectingTo: server.address)
            let response = try attacker.handshake(
                extraHeaders: [("Sec-WebSocket-Extensions", "permessage-deflate; client_max_window_bits")]
            )
            #expect(response.status == 101)
            #expect(response.header("Sec-WebSocket-Extensions")?.hasPrefix("permessage-deflate") == true)

            // 8 MiB of zeros compress to a few kilobytes; the server allows 1 MiB per message.
            let bomb = [UInt8](repeating: 0, count: 8 << 20)
            var compressed: [UInt8] = []
            let deflater = PerMessageDeflater(
                windowBits: 15,
                compressionLevel: 9,
                memoryLevel: 8,
                resetsAfterEachMessage: true
            )
            bomb.withUnsafeBytes { deflater.deflate($0, into: &compressed) }
            #expect(compressed.count < 64 * 1024)
            try attacker.sendFrame(.binary, compressed, rsv1: true)
            #expect(bystander.isServed())
            #expect(try attacker.readCloseCode() == 1009)
            #expect(attacker.serverClosesConnection(within: 2))
            #expect(bystander.isServed())
        }
    }

    @Test("A compressed message within the limit is inflated and echoed")
    func compressedMessageWithinLimitIsEchoed() throws {
        try LiveServer.with { server in
            let client = try server.openClient(extraHeaders: [("Sec-WebSocket-Extensions", "permessage-deflate")])
            let message = Array(String(repeating: "{\"key\":\"value\"},", count: 1000).utf8)
            var compressed: [UInt8] = []
            let deflater = PerMessageDeflater(
                windowBits: 15,
                compressionLevel: 6,
                memoryLevel: 8,
                resetsAfterEachMessage: true
            )
            message.withUnsafeBytes { deflater.deflate($0, into: &compressed) }
            try client.sendFrame(.text, compressed, rsv1: true)
            let echoed = try client.readFrame()
            #expect(echoed.opcode == .text)
            // The server compresses its answer too; inflate it to compare.
            #expect(echoed.header.rsv1)
            let inflater = PerMessageInflater(windowBits: 15, resetsAfterEachMessage: false)
            var inflated: [UInt8] = []
            try echoed.payload.withUnsafeBytes {
                try inflater.inflate($0, isFinal: true, into: &inflated, limit: 1 << 20)
            }
            #expect(inflated == message)
        }
    }

    @Test("Invalid UTF-8 split across fragments gets 1007 before the final fragment")
    func invalidUTF8AcrossFragmentsFailsEarly() throws {
        try self.expectClose(1007) { attacker, _ in
            // "€" is E2 82 AC: the first fragment ends inside it, which is fine so far.
            try attacker.sendFrame(.text, Array("price: ".utf8) + [0xE2, 0x82], fin: false)
            // 0x41 cannot continue the character: the message is bad now, whatever comes later.
            try attacker.sendFrame(.continuation, [0x41, 0x42], fin: false)
            // The final fragment is never sent: the Close has to come without it.
        }
    }

    @Test(
        "A Close frame with a code that is invalid on the wire gets 1002",
        arguments: [0, 999, 1004, 1005, 1006, 1015, 1016, 2000, 2999, 5000] as [UInt16]
    )
    func invalidCloseCodeIsProtocolError(code: UInt16) throws {
        try self.expectClose(1002) { attacker, _ in
            try attacker.sendClose(code: code)
        }
    }

    @Test("A Close frame with a one-byte payload gets 1002")
    func oneByteClosePayloadIsProtocolError() throws {
        try self.expectClose(1002) { attacker, _ in
            try attacker.sendFrame(.connectionClose, [0x03])
        }
    }

    @Test("An oversized header section is answered 431")
    func oversizedHeaderSectionIsRejected() throws {
        let filler = String(repeating: "a", count: 9_000)
        try self.expectStatus(431, for: TestClient.upgradeRequest(extraHeaders: [("X-Filler", filler)]))
    }

    @Test("Too many header fields are answered 431")
    func tooManyHeaderFieldsAreRejected() throws {
        let fields = (0..<100).map { ("X-Field-\($0)", "v") }
        try self.expectStatus(431, for: TestClient.upgradeRequest(extraHeaders: fields))
    }

    @Test("A handshake that never finishes is dropped at the handshake timeout while others are served")
    func unfinishedHandshakeIsDroppedAtTimeout() throws {
        try LiveServer.with({ $0.handshakeTimeoutMilliseconds = 300 }) { server in
            let bystander = try Bystander(server)
            let stalled = try TestClient(connectingTo: server.address)
            let request = TestClient.upgradeRequest()
            let started = Date()
            try stalled.send(Array(request[0..<(request.count / 2)]))
            // Keep the bystander busy while the stalled client waits to be dropped.
            var served = 0
            while Date().timeIntervalSince(started) < 0.2 {
                if bystander.isServed() { served += 1 }
                usleep(20_000)
            }
            #expect(served > 0)
            let bytes = try stalled.readUntilEndOfStream()
            let elapsed = Date().timeIntervalSince(started)
            #expect(bytes.isEmpty)
            #expect(elapsed >= 0.29)
            #expect(elapsed < 1.5)
            #expect(bystander.isServed())
        }
    }

    @Test("Garbage and plain HTTP on the TLS port are closed, and TLS clients are still served")
    func nonTLSBytesOnTLSPortAreClosed() throws {
        let certificate = try TemporaryCertificate()
        defer { certificate.remove() }
        let context = try certificate.clientContext()
        try LiveServer.with({
            $0.tlsListen = [SocketAddress(parsing: "127.0.0.1:0")!]
            $0.tlsCertificatePath = certificate.certificate.certificatePath
            $0.tlsPrivateKeyPath = certificate.certificate.privateKeyPath
        }) { server in
            let bystander = try Bystander(server, tls: context)
            #expect(bystander.isServed())
            let tlsAddress = try #require(server.tlsAddress)

            let garbage = try TestClient(connectingTo: tlsAddress)
            try garbage.send(testBytes(count: 4096, seed: 99))
            #expect(garbage.serverClosesConnection(within: 2))
            #expect(bystander.isServed())

            let plain = try TestClient(connectingTo: tlsAddress)
            try plain.send(TestClient.upgradeRequest())
            let answer = (try? plain.readUntilEndOfStream()) ?? []
            #expect(plain.sawEndOfStream)
            #expect(!String(decoding: answer, as: UTF8.self).contains("HTTP/1.1"))
            #expect(bystander.isServed())

            let newcomer = try server.openClient(tls: context)
            #expect(try newcomer.echo(text: "after the noise") == "after the noise")
        }
    }

    @Test("A wss echo round trip works")
    func secureEchoRoundTrip() throws {
        let certificate = try TemporaryCertificate()
        defer { certificate.remove() }
        let context = try certificate.clientContext()
        try LiveServer.with({
            $0.tlsListen = [SocketAddress(parsing: "127.0.0.1:0")!]
            $0.tlsCertificatePath = certificate.certificate.certificatePath
            $0.tlsPrivateKeyPath = certificate.certificate.privateKeyPath
        }) { server in
            let client = try server.openClient(tls: context)
            #expect(try client.echo(text: "secure ✓") == "secure ✓")
            let large = testBytes(count: 300_000, seed: 5)
            let echoed = try client.echo(.binary, large)
            #expect(echoed.opcode == .binary)
            #expect(echoed.payload == large)
            try client.sendClose(code: 1000)
            #expect(try client.readCloseCode() == 1000)
            #expect(client.serverClosesConnection(within: 2))
        }
    }

    @Test("Protocol errors over wss get the same close code, and graceful shutdown reaches wss clients")
    func protocolErrorOverTLSGetsCloseCode() throws {
        let certificate = try TemporaryCertificate()
        defer { certificate.remove() }
        let context = try certificate.clientContext()
        let server = try LiveServer {
            $0.tlsListen = [SocketAddress(parsing: "127.0.0.1:0")!]
            $0.tlsCertificatePath = certificate.certificate.certificatePath
            $0.tlsPrivateKeyPath = certificate.certificate.privateKeyPath
            $0.shutdownGracePeriodMilliseconds = 2_000
        }
        defer { server.stop() }
        let bystander = try Bystander(server, tls: context)
        let attacker = try server.openClient(tls: context)
        try attacker.sendFrame(.binary, [1, 2, 3], masked: false)
        #expect(bystander.isServed())
        #expect(try attacker.readCloseCode() == 1002)
        #expect(attacker.serverClosesConnection(within: 2))
        #expect(bystander.isServed())

        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            server.stop()
            stopped.signal()
        }
        #expect(try bystander.client.readCloseCode() == 1001)
        try bystander.client.sendClose(code: 1001)
        #expect(bystander.client.serverClosesConnection(within: 2))
        #expect(stopped.wait(timeout: .now() + 5) == .success)
    }

    @Test("Clients that reset their connection mid-echo do not disturb the server")
    func resetMidEchoDoesNotDisturbServer() throws {
        try LiveServer.with { server in
            let bystander = try Bystander(server)
            for round in 0..<10 {
                let client = try server.openClient()
                try client.sendFrame(.binary, testBytes(count: 512 * 1024, seed: UInt64(round)))
                // Abort with a reset while the server is writing the echo back.
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(client.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                client.close()
                #expect(bystander.isServed())
            }
            let deadline = Date().addingTimeInterval(3)
            while server.server.openConnectionCount > 1 && Date() < deadline { usleep(10_000) }
            #expect(server.server.openConnectionCount == 1)
        }
    }
}

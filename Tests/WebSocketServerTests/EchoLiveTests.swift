import EventIO
import Foundation
import Testing
import WebSocketServer
import WebSocketTestSupport

/// The echo endpoint served over real sockets: messages, control frames, plain HTTP answers, listeners, limits and
/// shutdown.
@Suite("Echo over live sockets")
struct EchoLiveTests {
    @Test("Text messages come back unchanged", arguments: [0, 5, 125, 126, 65_536, 1 << 20])
    func textMessagesComeBackUnchanged(size: Int) throws {
        try LiveServer.with { server in
            let client = try server.openClient()
            // Exactly `size` bytes of valid UTF-8 with multi-byte characters in it.
            let message =
                Array(String(repeating: "ab€", count: size / 5).utf8)
                + [UInt8](repeating: UInt8(ascii: "x"), count: size % 5)
            #expect(message.count == size)
            let echoed = try client.echo(.text, message)
            #expect(echoed.opcode == .text)
            #expect(echoed.header.fin)
            #expect(echoed.payload == message)
        }
    }

    @Test("Binary messages come back unchanged", arguments: [0, 5, 125, 126, 65_536, 1 << 20])
    func binaryMessagesComeBackUnchanged(size: Int) throws {
        try LiveServer.with { server in
            let client = try server.openClient()
            let message = testBytes(count: size, seed: UInt64(size) + 1)
            let echoed = try client.echo(.binary, message)
            #expect(echoed.opcode == .binary)
            #expect(echoed.payload.count == size)
            #expect(echoed.payload == message)
        }
    }

    @Test("A fragmented message is echoed whole as one frame")
    func fragmentedMessageIsEchoedWhole() throws {
        try LiveServer.with { server in
            let client = try server.openClient()
            try client.sendFrame(.text, Array("frag".utf8), fin: false)
            try client.sendFrame(.continuation, Array("men".utf8), fin: false)
            // A ping between fragments is answered at once, ahead of the message.
            try client.sendFrame(.ping, Array("mid".utf8))
            try client.sendFrame(.continuation, Array("ted ✓".utf8), fin: true)
            let pong = try client.readFrame()
            #expect(pong.opcode == .pong)
            #expect(pong.text == "mid")
            let echoed = try client.readFrame()
            #expect(echoed.opcode == .text)
            #expect(echoed.header.fin)
            #expect(echoed.text == "fragmented ✓")
        }
    }

    @Test("A ping is answered with a pong carrying the same payload")
    func pingIsAnsweredWithPong() throws {
        try LiveServer.with { server in
            let client = try server.openClient()
            let payload = testBytes(count: 125, seed: 7)
            try client.sendFrame(.ping, payload)
            let pong = try client.readFrame()
            #expect(pong.opcode == .pong)
            #expect(pong.payload == payload)
            try client.sendFrame(.ping, [])
            let empty = try client.readFrame()
            #expect(empty.opcode == .pong)
            #expect(empty.payload.isEmpty)
        }
    }

    @Test("A client Close 1000 is echoed and the server closes the TCP connection")
    func closeHandshakeEchoesCodeAndClosesConnection() throws {
        try LiveServer.with { server in
            let client = try server.openClient()
            #expect(try client.echo(text: "before") == "before")
            try client.sendClose(code: 1000)
            let close = try client.readFrame()
            #expect(close.opcode == .connectionClose)
            #expect(close.closeCode == 1000)
            #expect(client.serverClosesConnection(within: 2))
        }
    }

    @Test("Frames in the same segment as the upgrade request are processed")
    func framesInHandshakeSegmentAreProcessed() throws {
        try LiveServer.with { server in
            let client = try TestClient(connectingTo: server.address)
            let bytes =
                TestClient.upgradeRequest()
                + client.frame(.text, Array("first".utf8))
                + client.frame(.binary, [1, 2, 3])
            try client.send(bytes)
            let response = try client.readResponseHead()
            #expect(response.status == 101)
            #expect(response.header("Sec-WebSocket-Accept") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
            let first = try client.readFrame()
            #expect(first.opcode == .text)
            #expect(first.text == "first")
            let second = try client.readFrame()
            #expect(second.opcode == .binary)
            #expect(second.payload == [1, 2, 3])
        }
    }

    @Test("A request and frames dribbled in small pieces are reassembled")
    func dribbledBytesAreReassembled() throws {
        try LiveServer.with { server in
            let client = try TestClient(connectingTo: server.address)
            let message = testBytes(count: 70_000, seed: 3)
            let bytes =
                TestClient.upgradeRequest() + client.frame(.binary, message) + client.frame(.text, [0x6F, 0x6B])
            var offset = 0
            var piece = 1
            while offset < bytes.count {
                let end = min(offset + piece, bytes.count)
                try client.send(Array(bytes[offset..<end]))
                offset = end
                // Tiny pieces with pauses first (request line, headers, frame header), then larger ones.
                if offset < 400 {
                    usleep(500)
                    piece = piece % 7 + 1
                } else {
                    piece = 4_093
                }
            }
            let response = try client.readResponseHead()
            #expect(response.status == 101)
            let echoed = try client.readFrame()
            #expect(echoed.opcode == .binary)
            #expect(echoed.payload == message)
            let second = try client.readFrame()
            #expect(second.text == "ok")
        }
    }

    @Test("Only allowed origins may upgrade; other origins get 403")
    func originsAreChecked() throws {
        try LiveServer.with({ $0.allowedOrigins = ["https://good.example"] }) { server in
            let good = try server.openClient(extraHeaders: [("Origin", "https://good.example")])
            #expect(try good.echo(text: "welcome") == "welcome")
            let bad = try TestClient(connectingTo: server.address)
            let response = try bad.handshake(extraHeaders: [("Origin", "https://evil.example")])
            #expect(response.status == 403)
            #expect(bad.serverClosesConnection(within: 2))
            // Clients that send no Origin (not browsers) are allowed.
            let tool = try server.openClient()
            #expect(try tool.echo(text: "tool") == "tool")
        }
    }

    @Test("permessage-deflate is agreed only when the server enables it")
    func compressionIsNegotiatedOnlyWhenEnabled() throws {
        let offer = [("Sec-WebSocket-Extensions", "permessage-deflate; client_max_window_bits")]
        try LiveServer.with { server in
            let client = try TestClient(connectingTo: server.address)
            let response = try client.handshake(extraHeaders: offer)
            #expect(response.status == 101)
            #expect(response.header("Sec-WebSocket-Extensions")?.hasPrefix("permessage-deflate") == true)
        }
        try LiveServer.with({ $0.compression.isEnabled = false }) { server in
            let client = try TestClient(connectingTo: server.address)
            let response = try client.handshake(extraHeaders: offer)
            #expect(response.status == 101)
            #expect(response.header("Sec-WebSocket-Extensions") == nil)
            // Without the extension, a compressed frame is a protocol error.
            try client.sendFrame(.text, [0x00], rsv1: true)
            #expect(try client.readCloseCode() == 1002)
        }
    }

    @Test("A silent client is pinged, and dropped when it does not answer")
    func silentClientIsPingedThenDropped() throws {
        try LiveServer.with({
            $0.pingIntervalMilliseconds = 100
            $0.pongTimeoutMilliseconds = 200
        }) { server in
            let lively = try server.openClient()
            let silent = try server.openClient()
            let started = Date()
            let ping = try silent.readFrame()
            #expect(ping.opcode == .ping)
            // The lively client answers its pings and keeps talking; the silent one says nothing more.
            var pingsAnswered = 0
            func livelyRoundTrip() throws -> Bool {
                try lively.sendFrame(.text, Array("alive".utf8))
                for _ in 0..<10 {
                    let frame = try lively.readFrame()
                    guard frame.opcode == .ping else { return frame.opcode == .text && frame.text == "alive" }
                    try lively.sendFrame(.pong, frame.payload)
                    pingsAnswered += 1
                }
                return false
            }
            var served = 0
            while Date().timeIntervalSince(started) < 0.8 {
                if try livelyRoundTrip() { served += 1 }
                // Longer than the ping interval, so the lively client is pinged too.
                usleep(150_000)
            }
            #expect(served > 0)
            #expect(pingsAnswered > 0)
            #expect(silent.serverClosesConnection(within: 2))
            #expect(Date().timeIntervalSince(started) < 2.5)
            #expect(try livelyRoundTrip())
        }
    }

    @Test("A plain GET of an unknown path is answered 404 and closed")
    func unknownPathIsNotFound() throws {
        try LiveServer.with { server in
            let client = try TestClient(connectingTo: server.address)
            try client.send("GET /missing HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let response = try client.readResponseHead()
            #expect(response.status == 404)
            #expect(client.serverClosesConnection(within: 2))
        }
    }

    @Test("A GET of the echo path without an upgrade is answered 426")
    func echoWithoutUpgradeIsUpgradeRequired() throws {
        try LiveServer.with { server in
            let client = try TestClient(connectingTo: server.address)
            try client.send("GET /echo HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let response = try client.readResponseHead()
            #expect(response.status == 426)
            #expect(response.header("Upgrade")?.lowercased() == "websocket")
            #expect(response.header("Sec-WebSocket-Version") == "13")
            #expect(client.serverClosesConnection(within: 2))
        }
    }

    @Test("A POST with upgrade headers is answered 405")
    func postUpgradeIsMethodNotAllowed() throws {
        try LiveServer.with { server in
            let client = try TestClient(connectingTo: server.address)
            try client.send(TestClient.upgradeRequest(method: "POST"))
            let response = try client.readResponseHead()
            #expect(response.status == 405)
            #expect(response.header("Allow") == "GET")
            #expect(client.serverClosesConnection(within: 2))
        }
    }

    @Test("An IPv6 loopback listener on port 0 serves echo")
    func ipv6ListenerServesEcho() throws {
        let address = SocketAddress(parsing: "[::1]:0")!
        let server: LiveServer
        do {
            server = try LiveServer { $0.listen = [address] }
        } catch {
            // Only a machine without ::1 may get here, and then only with a bind failure.
            #expect(String(describing: error).contains("bind"))
            print("IPv6 loopback unavailable: \(error)")
            return
        }
        defer { server.stop() }
        #expect(server.address.isIPv6)
        #expect(server.address.host == "::1")
        #expect(server.address.port != 0)
        let client = try server.openClient()
        #expect(try client.echo(text: "over IPv6") == "over IPv6")
    }

    @Test("Two event loops serve 50 concurrent clients")
    func twoLoopsServeFiftyClients() throws {
        try LiveServer.with({ $0.eventLoopCount = 2 }) { server in
            let clients = try (0..<50).map { _ in try server.openClient() }
            // Every connection is open at once before any message flows.
            let deadline = Date().addingTimeInterval(5)
            while server.server.openConnectionCount < 50 && Date() < deadline { usleep(10_000) }
            #expect(server.server.openConnectionCount == 50)

            let failures = Failures()
            DispatchQueue.concurrentPerform(iterations: clients.count) { index in
                do {
                    for round in 0..<5 {
                        let text = "client \(index) round \(round)"
                        let echoed = try clients[index].echo(text: text)
                        if echoed != text { failures.add("client \(index): got \(echoed)") }
                    }
                } catch {
                    failures.add("client \(index): \(error)")
                }
            }
            #expect(failures.messages.isEmpty, "\(failures.messages)")
        }
    }

    @Test("Over the connection limit, a connection is closed without a 101")
    func connectionLimitClosesExtraConnection() throws {
        try LiveServer.with({ $0.maximumConnections = 2 }) { server in
            let first = try server.openClient()
            let second = try server.openClient()
            let third = try TestClient(connectingTo: server.address)
            try? third.send(TestClient.upgradeRequest())
            let answer = (try? third.readUntilEndOfStream()) ?? []
            #expect(third.sawEndOfStream)
            #expect(!String(decoding: answer, as: UTF8.self).contains("101"))
            // The two admitted clients are still served.
            #expect(try first.echo(text: "one") == "one")
            #expect(try second.echo(text: "two") == "two")

            // Once one of them leaves, a newcomer is admitted again.
            try first.sendClose(code: 1000)
            #expect(try first.readCloseCode() == 1000)
            #expect(first.serverClosesConnection(within: 2))
            var admitted = false
            for _ in 0..<50 where !admitted {
                if let late = try? server.openClient(), (try? late.echo(text: "late")) == "late" {
                    admitted = true
                } else {
                    usleep(20_000)
                }
            }
            #expect(admitted)
        }
    }

    @Test("Graceful shutdown sends Close 1001 to an open client")
    func gracefulShutdownSendsGoingAway() throws {
        let server = try LiveServer { $0.shutdownGracePeriodMilliseconds = 2_000 }
        let client = try server.openClient()
        #expect(try client.echo(text: "still here") == "still here")
        let stopped = DispatchSemaphore(value: 0)
        let started = Date()
        Thread.detachNewThread {
            server.stop()
            stopped.signal()
        }
        let close = try client.readFrame()
        #expect(close.opcode == .connectionClose)
        #expect(close.closeCode == 1001)
        try client.sendClose(code: 1001)
        #expect(client.serverClosesConnection(within: 2))
        #expect(stopped.wait(timeout: .now() + 5) == .success)
        // Answering the Close ends the shutdown well before the grace period runs out.
        #expect(Date().timeIntervalSince(started) < 1.5)
    }
}

/// Failure messages collected from several threads.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []

    func add(_ message: String) {
        self.lock.lock()
        self.stored.append(message)
        self.lock.unlock()
    }

    var messages: [String] {
        self.lock.lock()
        defer { self.lock.unlock() }
        return self.stored
    }
}

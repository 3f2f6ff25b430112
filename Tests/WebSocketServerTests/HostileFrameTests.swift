import EventIO
import Foundation
import Glibc
import Testing
import WebSocketCore
import WebSocketDeflate
import WebSocketServer
import WebSocketTestSupport

/// Runs `attack` against a live echo server while a bystander on another connection keeps doing round trips,
/// then checks the bystander was served throughout, each round trip within the bound.
func underAttack(
    _ configure: (inout ServerConfiguration) -> Void = { _ in },
    _ attack: (LiveServer) throws -> Void
) throws {
    try LiveServer.with(configure) { server in
        let bystander = try Bystander(server)
        #expect(bystander.isServed())
        let monitor = BystanderMonitor { bystander.isServed() }
        do {
            try attack(server)
        } catch {
            _ = monitor.stop()
            throw error
        }
        monitor.expectServed()
    }
}

/// Frames no correct client sends: each gets its exact close code, the connection is closed, and a bystander is
/// served within a bound while it happens.
@Suite("Hostile frames over live sockets")
struct HostileFrameTests {
    /// Sends `bytes` on a fresh upgraded connection and returns the Close code, after checking the server then
    /// closes the TCP connection.
    private func closeCode(
        after bytes: [UInt8], on server: LiveServer, headers: [(String, String)] = []
    ) throws -> UInt16 {
        let attacker = try server.openClient(extraHeaders: headers)
        try attacker.send(bytes)
        let code = try attacker.readCloseCode()
        #expect(attacker.serverClosesConnection(within: 2))
        return code
    }

    @Test("Every reserved bit and every reserved opcode gets 1002")
    func reservedBitsAndOpcodes() throws {
        try underAttack { server in
            for rsv in [0x40, 0x20, 0x10, 0x60, 0x70] as [UInt8] {
                let code = try self.closeCode(
                    after: TestClient.rawFrame(firstByte: 0x80 | rsv | 0x1, payload: Array("hi".utf8)), on: server)
                #expect(code == 1002, "RSV bits \(String(rsv, radix: 16))")
            }
            for opcode in [0x3, 0x4, 0x5, 0x6, 0x7, 0xB, 0xC, 0xD, 0xE, 0xF] as [UInt8] {
                let code = try self.closeCode(
                    after: TestClient.rawFrame(firstByte: 0x80 | opcode, payload: [1, 2]), on: server)
                #expect(code == 1002, "opcode \(opcode)")
            }
        }
    }

    @Test("Control frames over 125 bytes or fragmented get 1002")
    func oversizedAndFragmentedControlFrames() throws {
        try underAttack { server in
            for opcode in [0x8, 0x9, 0xA] as [UInt8] {
                // A 126-byte payload needs the 16-bit length form, which a control frame may not use.
                var frame: [UInt8] = [0x80 | opcode, 0x80 | 126, 0, 126, 1, 2, 3, 4]
                frame += [UInt8](repeating: 0x41, count: 126)
                let code = try self.closeCode(after: frame, on: server)
                #expect(code == 1002, "opcode \(opcode) with 126 bytes")
            }
            for opcode in [0x9, 0xA] as [UInt8] {
                let fragmented = TestClient.rawFrame(firstByte: opcode, payload: [1])
                let code = try self.closeCode(after: fragmented, on: server)
                #expect(code == 1002, "opcode \(opcode) without FIN")
            }
        }
    }

    @Test("A 64-bit length with the top bit set gets 1002")
    func sixtyFourBitLengthWithTopBit() throws {
        try underAttack { server in
            for length in [UInt64(1) << 63, UInt64.max, (UInt64(1) << 63) | 5] {
                var header: [UInt8] = [0x82, 0x80 | 127]
                for byte in 0..<8 { header.append(UInt8(truncatingIfNeeded: length >> UInt64(56 - 8 * byte))) }
                header += [1, 2, 3, 4]
                let code = try self.closeCode(after: header, on: server)
                #expect(code == 1002, "length \(length)")
            }
        }
    }

    @Test("A flood of empty continuation frames is closed at the fragment limit with bounded memory")
    func continuationFlood() throws {
        try underAttack({ $0.messageLimits.maximumFragmentsPerMessage = 1024 }) { server in
            let empty = TestClient.rawFrame(firstByte: 0x00, payload: [])
            let tiny = TestClient.rawFrame(firstByte: 0x00, payload: [0x61])
            var flood = TestClient.rawFrame(firstByte: 0x01, payload: [0x61])
            for index in 0..<20_000 { flood += index % 2 == 0 ? empty : tiny }
            let before = residentBytes()
            for _ in 0..<20 {
                let code = try self.closeCode(after: flood, on: server)
                #expect(code == 1008)
            }
            let grown = residentBytes() - before
            // 20 floods of 20,000 frames (2.4 MB sent in all): memory must not grow with what was sent.
            #expect(grown < 16 << 20, "resident memory grew by \(grown) bytes")
            #expect(server.server.statistics.snapshot["protocol_violations"] == 20)
        }
    }

    @Test("Invalid UTF-8 at every position of a short multi-byte string gets 1007")
    func invalidUTF8AtEveryPosition() throws {
        let valid = Array("aé€𝄞z".utf8)
        // Characters start at these offsets; cutting the message anywhere else ends it inside a character.
        let boundaries: Set<Int> = [0, 1, 3, 6, 10, 11]
        try underAttack { server in
            for position in valid.indices {
                for bad in [0xFF, 0xC0, 0xF8] as [UInt8] {
                    var text = valid
                    text[position] = bad
                    let code = try self.closeCode(
                        after: TestClient.rawFrame(firstByte: 0x81, payload: text), on: server)
                    #expect(code == 1007, "byte \(bad) at \(position)")
                }
            }
            for cut in 1..<valid.count where !boundaries.contains(cut) {
                let code = try self.closeCode(
                    after: TestClient.rawFrame(firstByte: 0x81, payload: Array(valid[0..<cut])), on: server)
                #expect(code == 1007, "message cut at \(cut)")
            }
            // The same string, valid, is echoed.
            let client = try server.openClient()
            #expect(try client.echo(text: "aé€𝄞z") == "aé€𝄞z")
        }
    }

    @Test("Every close code that is invalid on the wire gets 1002")
    func everyInvalidCloseCode() throws {
        let invalid = (0...4999).map(UInt16.init).filter { !WebSocketCloseCode(rawValue: $0).isValidOnWire }
        #expect(invalid.count == 2988)
        try underAttack { server in
            // The upgrade request and the Close go in one write; the server answers both.
            for code in invalid {
                let attacker = try TestClient(connectingTo: server.address)
                try attacker.send(
                    TestClient.upgradeRequest()
                        + attacker.frame(.connectionClose, [UInt8(code >> 8), UInt8(code & 0xFF)]))
                let response = try attacker.readResponseHead()
                #expect(response.status == 101)
                let answer = try attacker.readCloseCode()
                if answer != 1002 { Issue.record("close code \(code) was answered \(answer)") }
            }
            #expect(server.server.statistics.snapshot["protocol_violations"] == invalid.count)
            // Valid codes are echoed back.
            for code in [1000, 1003, 1014, 3000, 4999] as [UInt16] {
                let client = try server.openClient()
                try client.sendClose(code: code)
                #expect(try client.readCloseCode() == code)
            }
        }
    }

    @Test("A corrupt deflate stream gets 1007")
    func corruptDeflateStream() throws {
        let deflate = [("Sec-WebSocket-Extensions", "permessage-deflate")]
        try underAttack { server in
            // Blocks of the reserved type 3, and a stored block whose length check does not match.
            for payload in [[0xFF, 0xFF, 0xFF, 0xFF], [0x07, 0x00, 0x00], [0x01, 0x05, 0x00, 0x00, 0x00]] as [[UInt8]] {
                let attacker = try server.openClient(extraHeaders: deflate)
                try attacker.sendFrame(.binary, payload, rsv1: true)
                #expect(try attacker.readCloseCode() == 1007, "payload \(payload.prefix(4))")
                #expect(attacker.serverClosesConnection(within: 2))
            }
        }
    }

    @Test("A ping flood from one client is closed with 1008 at the rate limit")
    func pingFlood() throws {
        try underAttack({
            $0.maximumMessagesPerSecond = 100
            $0.messageBurst = 200
        }) { server in
            let attacker = try server.openClient()
            var flood: [UInt8] = []
            for _ in 0..<2_000 { flood += attacker.frame(.ping, [0x70]) }
            try attacker.send(flood)
            var pongs = 0
            var close: UInt16?
            for _ in 0..<3_000 {
                let frame = try attacker.readFrame()
                if frame.opcode == .pong { pongs += 1 }
                if frame.opcode == .connectionClose {
                    close = frame.closeCode
                    #expect(String(decoding: frame.payload.dropFirst(2), as: UTF8.self) == "rate limit")
                    break
                }
            }
            #expect(close == 1008)
            // The burst was answered, and not much more: the bucket refills at 100 a second.
            #expect(pongs >= 200 && pongs < 400, "\(pongs) pongs")
            #expect(attacker.serverClosesConnection(within: 2))
            #expect(server.server.statistics.snapshot["connections_rate_limited"] == 1)
        }
    }

    @Test("A message flood is closed with 1008, and a client within the burst is not")
    func messageFlood() throws {
        try underAttack({
            $0.maximumMessagesPerSecond = 100
            $0.messageBurst = 200
        }) { server in
            let polite = try server.openClient()
            var batch: [UInt8] = []
            for index in 0..<150 { batch += polite.frame(.text, Array("m\(index)".utf8)) }
            try polite.send(batch)
            for index in 0..<150 { #expect(try polite.readFrame().text == "m\(index)") }

            let attacker = try server.openClient()
            var flood: [UInt8] = []
            for index in 0..<5_000 { flood += attacker.frame(.text, Array("f\(index)".utf8)) }
            try attacker.send(flood)
            #expect(try attacker.readCloseCode() == 1008)
            #expect(attacker.serverClosesConnection(within: 2))
            #expect(try polite.echo(text: "still here") == "still here")
            #expect(server.server.statistics.snapshot["connections_rate_limited"] == 1)
        }
    }

    @Test("A client that never reads is closed at the write queue limit; others are unaffected")
    func clientThatNeverReads() throws {
        try underAttack({
            $0.writeQueueLowWatermark = 16 * 1024
            $0.writeQueueHighWatermark = 64 * 1024
            $0.writeQueueLimit = 256 * 1024
        }) { server in
            let attacker = try server.openClient()
            var small: Int32 = 4096
            setsockopt(attacker.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            // 40 MB of echoes asked for, never read: far past the kernel's buffers and the queue limit.
            let message = testBytes(count: 1 << 20, seed: 3)
            var sent = 0
            for _ in 0..<40 {
                guard (try? attacker.sendFrame(.binary, message)) != nil else { break }
                sent += 1
                if server.server.statistics.snapshot["slow_consumers_closed"] == 1 { break }
            }
            #expect(sent > 0)
            let deadline = Date().addingTimeInterval(5)
            while server.server.statistics.snapshot["slow_consumers_closed"] != 1 && Date() < deadline {
                usleep(10_000)
            }
            #expect(server.server.statistics.snapshot["slow_consumers_closed"] == 1)
            // What the kernel already held comes first, every echo whole, then the Close (the queued echoes were
            // dropped).
            var echoes = 0
            var closeCode: UInt16?
            while closeCode == nil {
                let frame = try attacker.readFrame()
                if frame.opcode == .connectionClose {
                    closeCode = frame.closeCode
                } else {
                    #expect(frame.opcode == .binary && frame.payload == message, "echo \(echoes) arrived cut short")
                    echoes += 1
                }
            }
            #expect(closeCode == 1008)
            #expect(attacker.serverClosesConnection(within: 2))
        }
    }
}

import Foundation
import Glibc
import WebSocketCore

extension TestClient {
    /// A fresh masking key (deterministic, never all zero).
    private func nextMaskingKey() -> WebSocketMaskingKey {
        self.maskSeed = self.maskSeed &* 1_103_515_245 &+ 12_345
        return WebSocketMaskingKey(word: self.maskSeed | 0x0101_0101)
    }

    /// Encodes a client frame, masked unless `masked` is false.
    public func frame(
        _ opcode: WebSocketOpcode,
        _ payload: [UInt8],
        fin: Bool = true,
        rsv1: Bool = false,
        masked: Bool = true
    ) -> [UInt8] {
        let key = masked ? self.nextMaskingKey() : nil
        return payload.withUnsafeBytes {
            WebSocketFrameEncoder.encode(opcode: opcode, payload: $0, fin: fin, rsv1: rsv1, maskingKey: key).bytes
        }
    }

    /// Sends one client frame.
    public func sendFrame(
        _ opcode: WebSocketOpcode,
        _ payload: [UInt8],
        fin: Bool = true,
        rsv1: Bool = false,
        masked: Bool = true
    ) throws {
        try self.send(self.frame(opcode, payload, fin: fin, rsv1: rsv1, masked: masked))
    }

    /// Sends a Close frame with a code and no reason.
    public func sendClose(code: UInt16) throws {
        try self.sendFrame(.connectionClose, [UInt8(code >> 8), UInt8(code & 0xFF)])
    }

    /// Reads the next server frame, waiting for all of it.
    public func readFrame() throws -> TestFrame {
        let deadline = Date().addingTimeInterval(self.timeout)
        while true {
            let step = self.received.withUnsafeMutableBytes { self.decoder.decodeFrame(in: $0, at: 0) }
            switch step {
            case .frame(let header, let start, let end):
                let frame = TestFrame(header: header, payload: Array(self.received[start..<end]))
                self.received.removeFirst(end)
                return frame
            case .violation(let violation):
                throw TestClientError("the server sent a bad frame: \(violation)")
            case .needMoreData:
                guard try self.receiveSome(until: deadline) else {
                    throw TestClientError("connection closed before a whole frame (\(self.received.count) bytes)")
                }
            }
        }
    }

    /// Reads frames up to the next Close frame and returns its code (0 for an empty Close).
    public func readCloseCode() throws -> UInt16 {
        for _ in 0..<10_000 {
            let frame = try self.readFrame()
            if frame.opcode == .connectionClose { return frame.closeCode ?? 0 }
        }
        throw TestClientError("no Close frame")
    }

    /// Sends a message and returns the echoed frame.
    public func echo(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws -> TestFrame {
        try self.sendFrame(opcode, payload)
        return try self.readFrame()
    }

    /// Sends a text message and returns the echoed text.
    public func echo(text: String) throws -> String {
        let frame = try self.echo(.text, Array(text.utf8))
        guard frame.opcode == .text else { throw TestClientError("expected a text frame, got \(frame.opcode)") }
        return frame.text
    }

    /// A client frame built byte by byte: the first header byte as given (FIN, RSV bits, opcode), a masked payload
    /// of at most 125 bytes.
    public static func rawFrame(firstByte: UInt8, payload: [UInt8]) -> [UInt8] {
        precondition(payload.count <= 125)
        let key: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        var bytes: [UInt8] = [firstByte, 0x80 | UInt8(payload.count)] + key
        for (index, byte) in payload.enumerated() { bytes.append(byte ^ key[index % 4]) }
        return bytes
    }

    /// Whether the server has closed the connection by now, without waiting (a reset counts as closed).
    public func isClosedByServer() -> Bool {
        var byte: UInt8 = 0
        while true {
            let count = recv(self.fd, &byte, 1, Int32(MSG_DONTWAIT))
            if count == 0 { return true }
            if count > 0 { continue }
            return errno == ECONNRESET
        }
    }
}

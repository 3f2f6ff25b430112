import EventIO
import Foundation
import Glibc
import JSONCoding

/// A small blocking WebSocket client for the rooms protocol in tests: text frames out (masked), frames in.
final class TestWebSocket {
    private let fd: Int32
    private var received: [UInt8] = []
    private let deadlineSeconds: Double

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects to `address` and upgrades on `path` (with the query, e.g. `?token=...`).
    init(address: SocketAddress, path: String, timeout: Double = 5) throws {
        self.deadlineSeconds = timeout
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        self.fd = fd
        var receiveTimeout = timeval(tv_sec: 0, tv_usec: 50_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &receiveTimeout, socklen_t(MemoryLayout<timeval>.size))
        var raw = sockaddr_in()
        raw.sin_family = sa_family_t(AF_INET)
        raw.sin_port = UInt16(address.port).bigEndian
        _ = inet_pton(AF_INET, address.host, &raw.sin_addr)
        let result = withUnsafePointer(to: &raw) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            Glibc.close(fd)
            throw Failure(description: "connect: errno \(errno)")
        }
        let request =
            "GET \(path) HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try self.write(Array(request.utf8))
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let end = Self.headEnd(self.received) {
                let head = String(decoding: self.received[0..<end], as: UTF8.self)
                self.received.removeFirst(end + 4)
                guard head.hasPrefix("HTTP/1.1 101") else { throw Failure(description: "upgrade refused: \(head)") }
                return
            }
            try self.receive(until: deadline)
        }
    }

    deinit {
        Glibc.close(self.fd)
    }

    /// Sends a JSON message.
    func send(_ value: JSONValue) throws {
        let payload = JSONWriter.bytes(value)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame.append(0x80 | 126)
            frame.append(UInt8(payload.count >> 8))
            frame.append(UInt8(payload.count & 0xFF))
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame.append(contentsOf: mask)
        for (index, byte) in payload.enumerated() { frame.append(byte ^ mask[index % 4]) }
        try self.write(frame)
    }

    /// The next frame: a text message as JSON, or the close code of a Close frame.
    enum Incoming {
        case message(JSONObject)
        case close(UInt16)
    }

    func next() throws -> Incoming {
        let deadline = Date().addingTimeInterval(self.deadlineSeconds)
        while true {
            if let (opcode, payload, size) = Self.frame(self.received) {
                self.received.removeFirst(size)
                switch opcode {
                case 0x1:
                    guard case .object(let object) = try JSONParser.parse(payload) else {
                        throw Failure(description: "not an object")
                    }
                    return .message(object)
                case 0x8:
                    return .close(payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : 1005)
                default:
                    continue
                }
            }
            try self.receive(until: deadline)
        }
    }

    /// The next message whose `type` is `type`, skipping others.
    func next(type: String) throws -> JSONObject {
        while true {
            if case .message(let object) = try self.next(), object["type"] == .string(type) { return object }
        }
    }

    /// The close code of the next Close frame, skipping messages.
    func closeCode() throws -> UInt16 {
        while true {
            if case .close(let code) = try self.next() { return code }
        }
    }

    private func write(_ bytes: [UInt8]) throws {
        let written = bytes.withUnsafeBytes { Glibc.send(self.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard written == bytes.count else { throw Failure(description: "short write") }
    }

    private func receive(until deadline: Date) throws {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while Date() < deadline {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(self.fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                self.received.append(contentsOf: buffer[0..<count])
                return
            }
            if count == 0 { throw Failure(description: "connection closed") }
        }
        throw Failure(description: "timed out")
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index..<(index + 4)].elementsEqual([13, 10, 13, 10]) {
            return index
        }
        return nil
    }

    /// An unmasked server frame at the start of `bytes`: opcode, payload, total size.
    private static func frame(_ bytes: [UInt8]) -> (UInt8, [UInt8], Int)? {
        guard bytes.count >= 2 else { return nil }
        var length = Int(bytes[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(bytes[$1]) }
            offset = 10
        }
        guard bytes.count >= offset + length else { return nil }
        return (bytes[0] & 0x0F, Array(bytes[offset..<(offset + length)]), offset + length)
    }
}

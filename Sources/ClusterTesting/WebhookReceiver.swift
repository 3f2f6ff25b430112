import EventIO
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A webhook receiver for tests on 127.0.0.1, plain HTTP or TLS with a given certificate: a thread accepts, each
/// connection is served on a thread of its own, each request's answer is chosen by `behavior` (from the request's
/// number, counting from 0), and every request and connection is recorded.
public final class WebhookReceiver: @unchecked Sendable {
    /// How to answer one request.
    public enum Behavior: Sendable {
        /// A complete answer with this status and a short body, keeping the connection.
        case answer(Int)
        /// A chunked answer with this status.
        case chunked(Int)
        /// No answer for this long, then the connection closes.
        case stall(seconds: Double)
        /// The head and part of the body, then the connection closes.
        case closeMidAnswer
    }

    /// One request as received.
    public struct Request: Sendable {
        /// The connection it came on, counting from 1.
        public var connection: Int
        /// Its head, request line to the last header line.
        public var head: String
        /// Its body.
        public var body: [UInt8]
    }

    /// The port on 127.0.0.1.
    public let port: UInt16
    private let listener: Int32
    private let tlsContext: TLSContext?
    private let behavior: @Sendable (Int) -> Behavior
    private let recorded = Mutex<(requests: [Request], connections: Int)>(([], 0))
    private let running = Atomic<Bool>(true)

    /// Starts listening on a free port.
    ///
    /// - Parameters:
    ///   - certificate: serve TLS with this certificate; nil for plain HTTP.
    ///   - behavior: the answer to the request of each number.
    /// - Throws: when the socket or the TLS context cannot be made.
    public init(certificate: TLSSelfSignedCertificate? = nil, behavior: @escaping @Sendable (Int) -> Behavior) throws {
        self.tlsContext = try certificate.map {
            try TLSContext.makeServer(certificateChainPath: $0.certificatePath, privateKeyPath: $0.privateKeyPath)
        }
        self.behavior = behavior
        self.listener = try Socket.listen(on: SocketAddress(ipv4: "127.0.0.1", port: 0)!, reusePort: false)
        self.port = UInt16(try Socket.localAddress(of: self.listener).port)
        let thread = Thread { [self] in self.acceptLoop() }
        thread.start()
    }

    /// The requests received so far.
    public var requests: [Request] { self.recorded.withLock { $0.requests } }

    /// The connections accepted so far.
    public var connections: Int { self.recorded.withLock { $0.connections } }

    /// The `room#seq` of every event received, in order of arrival (events are `{"room","seq",...}`).
    public var events: [String] {
        self.requests.flatMap { request -> [String] in
            guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
                let events = object["events"] as? [[String: Any]]
            else { return [] }
            return events.map { "\($0["room"] ?? "?")#\($0["seq"] ?? "?")" }
        }
    }

    /// Stops accepting; connections end when their peers close them.
    public func close() {
        self.running.store(false, ordering: .relaxed)
        Glibc.shutdown(self.listener, Int32(SHUT_RDWR))
    }

    deinit {
        Glibc.close(self.listener)
    }

    private func acceptLoop() {
        var pollDescriptor = pollfd(fd: self.listener, events: Int16(POLLIN), revents: 0)
        while self.running.load(ordering: .relaxed) {
            guard poll(&pollDescriptor, 1, 50) > 0 else { continue }
            guard case .processed(let (fd, _))? = try? Socket.accept(self.listener) else { continue }
            let number = self.recorded.withLock { recorded -> Int in
                recorded.connections += 1
                return recorded.connections
            }
            // Blocking from here, with a generous bound on every receive.
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let thread = Thread { [self] in self.serve(fd, connection: number) }
            thread.start()
        }
    }

    private func serve(_ fd: Int32, connection: Int) {
        defer { Glibc.close(fd) }
        guard var channel = Channel(fd: fd, tls: self.tlsContext) else { return }
        var buffer: [UInt8] = []
        while self.running.load(ordering: .relaxed) {
            guard let request = Self.readRequest(&channel, &buffer) else { return }
            let number = self.recorded.withLock { recorded -> Int in
                recorded.requests.append(Request(connection: connection, head: request.head, body: request.body))
                return recorded.requests.count - 1
            }
            switch self.behavior(number) {
            case .answer(let status):
                channel.write(Array("HTTP/1.1 \(status) X\r\nContent-Length: 2\r\n\r\nok".utf8))
            case .chunked(let status):
                channel.write(
                    Array(
                        "HTTP/1.1 \(status) X\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n3;x=y\r\n!!!\r\n0\r\n\r\n"
                            .utf8))
            case .stall(let seconds):
                Thread.sleep(forTimeInterval: seconds)
                return
            case .closeMidAnswer:
                channel.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial".utf8))
                return
            }
        }
    }

    /// Reads one request: its head up to the blank line, then `Content-Length` bytes of body.
    private static func readRequest(_ channel: inout Channel, _ buffer: inout [UInt8]) -> (head: String, body: [UInt8])?
    {
        let separator: [UInt8] = [13, 10, 13, 10]
        while true {
            if let end = Self.find(separator, in: buffer) {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                var length = 0
                for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
                let start = end + 4
                while buffer.count < start + length {
                    guard let more = channel.read() else { return nil }
                    buffer += more
                }
                let body = Array(buffer[start..<(start + length)])
                buffer.removeFirst(start + length)
                return (head, body)
            }
            guard let more = channel.read() else { return nil }
            buffer += more
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count)
        where haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }

    /// A blocking connection, plain or through a server-side TLS engine.
    private struct Channel {
        let fd: Int32
        let tls: TLSConnection?

        init?(fd: Int32, tls context: TLSContext?) {
            self.fd = fd
            guard let context else {
                self.tls = nil
                return
            }
            guard let tls = try? TLSConnection(context: context) else { return nil }
            self.tls = tls
            while true {
                guard let state = try? tls.advanceHandshake() else {
                    self.sendCiphertext()
                    return nil
                }
                self.sendCiphertext()
                if state == .complete { break }
                guard let bytes = self.receive() else { return nil }
                bytes.withUnsafeBytes { tls.receiveCiphertext($0) }
            }
        }

        func read() -> [UInt8]? {
            guard let tls = self.tls else { return self.receive() }
            var plaintext = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let result = plaintext.withUnsafeMutableBytes { try? tls.readPlaintext(into: $0) }
                self.sendCiphertext()
                switch result {
                case .bytes(let count)?: return Array(plaintext[..<count])
                case .wouldBlock?:
                    guard let bytes = self.receive() else { return nil }
                    bytes.withUnsafeBytes { tls.receiveCiphertext($0) }
                case .closed?, nil: return nil
                }
            }
        }

        func write(_ bytes: [UInt8]) {
            guard let tls = self.tls else {
                self.send(bytes)
                return
            }
            var offset = 0
            while offset < bytes.count {
                let accepted =
                    bytes.withUnsafeBytes { try? tls.writePlaintext(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
                    ?? 0
                self.sendCiphertext()
                guard accepted > 0 else { return }
                offset += accepted
            }
        }

        private func sendCiphertext() {
            guard let tls = self.tls, tls.hasPendingCiphertext else { return }
            var out: [UInt8] = []
            tls.takeCiphertext(into: &out)
            self.send(out)
        }

        private func send(_ bytes: [UInt8]) {
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes {
                    Glibc.send(self.fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
                }
                guard written > 0 else { return }
                offset += written
            }
        }

        private func receive() -> [UInt8]? {
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let count = chunk.withUnsafeMutableBytes { Glibc.recv(self.fd, $0.baseAddress, $0.count, 0) }
            return count > 0 ? Array(chunk[..<count]) : nil
        }
    }
}

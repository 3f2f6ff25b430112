import EventIO
import WebSocketCore

#if canImport(Glibc)
import Glibc
#endif

/// Posts one delivery and reads the answer's status, blocking the calling thread (each endpoint delivers on a
/// thread of its own): a fresh connection per delivery (`Connection: close`), plain or TLS through EventIO's
/// engine, every step bounded by the delivery's deadline.
struct WebhookPoster {
    let url: WebhookURL
    let timeoutMilliseconds: Int64
    /// The TLS client context for `https://` endpoints (verifies the receiver's certificate and name).
    let tlsContext: TLSContext?

    /// Sends the request; returns the answer's status code.
    func post(body: [UInt8], headers: [(String, String)]) throws(WebhookDeliveryError) -> Int {
        let deadline = EventLoop.monotonicNow() + UInt64(self.timeoutMilliseconds) * 1_000_000
        let address = try self.resolve()
        let fd: Int32
        do {
            fd = try Socket.connectBlocking(to: address, timeoutSeconds: Double(self.timeoutMilliseconds) / 1000)
        } catch {
            throw WebhookDeliveryError("cannot connect to \(self.url.authority): \(error)")
        }
        defer { Glibc.close(fd) }
        var head = "POST \(self.url.path) HTTP/1.1\r\nHost: \(self.url.authority)\r\nConnection: close\r\n"
        head += "User-Agent: rollcall-webhooks\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let request = Array((head + "\r\n").utf8) + body
        var channel = try Channel(fd: fd, deadline: deadline, tls: self.tlsContext, serverName: self.url.host)
        try channel.write(request)
        var received: [UInt8] = []
        while true {
            var parser = HTTPResponseParser()
            if case .complete(let response) = received.withUnsafeBytes({ parser.parse($0) }) {
                return response.status
            }
            guard let chunk = try channel.read(), !chunk.isEmpty else {
                throw WebhookDeliveryError("the receiver closed without a complete answer")
            }
            received += chunk
            guard received.count <= 64 * 1024 else { throw WebhookDeliveryError("the answer's head is too large") }
        }
    }

    /// The receiver's address: an IP address as written, or the first address the resolver gives for a name.
    private func resolve() throws(WebhookDeliveryError) -> SocketAddress {
        let host = self.url.host == "localhost" ? "127.0.0.1" : self.url.host
        if let address = SocketAddress(ipv4: host, port: self.url.port)
            ?? SocketAddress(ipv6: host, port: self.url.port)
        {
            return address
        }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else {
            throw WebhookDeliveryError("cannot resolve \(host)")
        }
        defer { freeaddrinfo(list) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            if current.pointee.ai_family == AF_INET {
                var address = current.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    $0.pointee.sin_addr
                }
                inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
                if let found = SocketAddress(ipv4: String(cString: text), port: self.url.port) { return found }
            } else if current.pointee.ai_family == AF_INET6 {
                var address = current.pointee.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    $0.pointee.sin6_addr
                }
                inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
                if let found = SocketAddress(ipv6: String(cString: text), port: self.url.port) { return found }
            }
            node = current.pointee.ai_next
        }
        throw WebhookDeliveryError("no usable address for \(host)")
    }

    /// A blocking connection, plain or through a TLS engine, whose reads and writes stop at the deadline.
    private struct Channel {
        let fd: Int32
        let deadline: UInt64
        let tls: TLSConnection?
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)

        init(fd: Int32, deadline: UInt64, tls context: TLSContext?, serverName: String) throws(WebhookDeliveryError) {
            self.fd = fd
            self.deadline = deadline
            guard let context else {
                self.tls = nil
                return
            }
            do {
                let tls = try TLSConnection(context: context, serverName: serverName)
                self.tls = tls
                while try tls.advanceHandshake() == .inProgress {
                    try self.sendCiphertext()
                    guard let bytes = try self.receive(), !bytes.isEmpty else {
                        throw WebhookDeliveryError("the receiver closed during the TLS handshake")
                    }
                    bytes.withUnsafeBytes { tls.receiveCiphertext($0) }
                }
                try self.sendCiphertext()
            } catch let error as WebhookDeliveryError {
                throw error
            } catch {
                throw WebhookDeliveryError("TLS handshake with \(serverName) failed: \(error)")
            }
        }

        mutating func write(_ bytes: [UInt8]) throws(WebhookDeliveryError) {
            guard let tls = self.tls else {
                try self.send(bytes)
                return
            }
            var offset = 0
            while offset < bytes.count {
                do {
                    offset += try bytes.withUnsafeBytes {
                        try tls.writePlaintext(UnsafeRawBufferPointer(rebasing: $0[offset...]))
                    }
                } catch {
                    throw WebhookDeliveryError("TLS write failed: \(error)")
                }
                try self.sendCiphertext()
            }
        }

        /// The next plaintext bytes; nil or empty at the end of the stream.
        mutating func read() throws(WebhookDeliveryError) -> [UInt8]? {
            guard let tls = self.tls else { return try self.receive() }
            while true {
                let result: TLSReadResult
                do {
                    result = try self.buffer.withUnsafeMutableBytes { try tls.readPlaintext(into: $0) }
                } catch {
                    throw WebhookDeliveryError("TLS read failed: \(error)")
                }
                switch result {
                case .bytes(let count): return Array(self.buffer[..<count])
                case .closed: return nil
                case .wouldBlock:
                    try self.sendCiphertext()
                    guard let bytes = try self.receive(), !bytes.isEmpty else { return nil }
                    bytes.withUnsafeBytes { tls.receiveCiphertext($0) }
                }
            }
        }

        private func sendCiphertext() throws(WebhookDeliveryError) {
            guard let tls = self.tls else { return }
            var pending: [UInt8] = []
            tls.takeCiphertext(into: &pending)
            if !pending.isEmpty { try self.send(pending) }
        }

        private func send(_ bytes: [UInt8]) throws(WebhookDeliveryError) {
            var offset = 0
            while offset < bytes.count {
                try self.checkDeadline()
                let written = bytes.withUnsafeBytes {
                    Glibc.send(self.fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
                }
                guard written > 0 else {
                    if written < 0 && errno == EINTR { continue }
                    throw WebhookDeliveryError("send failed: \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }

        private func receive() throws(WebhookDeliveryError) -> [UInt8]? {
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                try self.checkDeadline()
                let count = chunk.withUnsafeMutableBytes { Glibc.recv(self.fd, $0.baseAddress, $0.count, 0) }
                if count >= 0 { return Array(chunk[..<count]) }
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    throw WebhookDeliveryError("the receiver did not answer in time")
                }
                throw WebhookDeliveryError("receive failed: \(String(cString: strerror(errno)))")
            }
        }

        private func checkDeadline() throws(WebhookDeliveryError) {
            if EventLoop.monotonicNow() >= self.deadline {
                throw WebhookDeliveryError("the receiver did not answer in time")
            }
        }
    }
}

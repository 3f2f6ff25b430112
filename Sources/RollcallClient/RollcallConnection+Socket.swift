// The Linux transport: EventIO's sockets and OpenSSL; Apple platforms supply a RollcallTransport of their own.
#if canImport(EventIO)

import EventIO
import HTTPCore

#if canImport(Glibc)
import Glibc
#endif

extension RollcallConnection {
    // MARK: Socket and TLS

    var fd: Int32 { self.lock.withLock { self.socket } }

    /// Waits until the socket is ready for `events`; false on timeout.
    func waitFor(_ events: Int16, until deadline: Double) throws(RollcallError) -> Bool {
        let fd = self.fd
        guard fd >= 0 else { throw RollcallError(.transport("the socket is closed")) }
        while true {
            let remaining = deadline - MonotonicClock.now()
            guard remaining > 0 else { return false }
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let result = Glibc.poll(&descriptor, 1, Int32(min(remaining * 1000, 1000)) + 1)
            if result < 0 {
                if errno == EINTR { continue }
                throw RollcallError(.transport("poll failed: errno \(errno)"))
            }
            if result > 0 { return true }
        }
    }

    /// Writes bytes to the socket, encrypting them first over TLS.
    func writeAll(_ bytes: [UInt8], until deadline: Double) throws(RollcallError) {
        guard let tls = self.tls else {
            try self.writeRaw(bytes, until: deadline)
            return
        }
        var offset = 0
        while offset < bytes.count {
            let written: Int
            do {
                written = try bytes.withUnsafeBytes { buffer throws(TLSError) in
                    try tls.writePlaintext(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
                }
            } catch {
                throw RollcallError(.transport("TLS: \(error)"))
            }
            offset += written
            try self.flushCiphertext(until: deadline)
            if written == 0 && !tls.hasPendingCiphertext && MonotonicClock.now() > deadline {
                throw RollcallError(.timedOut("a TLS write"))
            }
        }
    }

    func flushCiphertext(until deadline: Double) throws(RollcallError) {
        guard let tls = self.tls else { return }
        while tls.hasPendingCiphertext {
            var ciphertext: [UInt8] = []
            _ = tls.takeCiphertext(into: &ciphertext)
            try self.writeRaw(ciphertext, until: deadline)
        }
    }

    func writeRaw(_ bytes: [UInt8], until deadline: Double) throws(RollcallError) {
        var offset = 0
        while offset < bytes.count {
            let fd = self.fd
            guard fd >= 0 else { throw RollcallError(.transport("the socket is closed")) }
            let result: IOResult<Int>
            do {
                result = try bytes.withUnsafeBytes { buffer throws(IOError) in
                    try Socket.write(fd, UnsafeRawBufferPointer(rebasing: buffer[offset...]))
                }
            } catch {
                throw RollcallError(.transport(String(describing: error)))
            }
            switch result {
            case .processed(let count):
                offset += count
            case .wouldBlock:
                guard try self.waitFor(Int16(POLLOUT), until: deadline) else {
                    throw RollcallError(.timedOut("the socket to accept data"))
                }
            }
        }
    }

    /// Reads what is available into `inbound` (decrypted over TLS); false at end of stream.
    func receive() throws(RollcallError) -> Bool {
        let fd = self.fd
        guard fd >= 0 else { return false }
        let result: IOResult<Int>
        do {
            result = try self.readBuffer.withUnsafeMutableBytes { buffer throws(IOError) in
                try Socket.read(fd, into: buffer)
            }
        } catch {
            if let error = error as? IOError, error.errnoCode == ECONNRESET || error.errnoCode == EPIPE { return false }
            throw RollcallError(.transport(String(describing: error)))
        }
        guard case .processed(let count) = result else { return true }
        guard count > 0 else { return false }
        guard let tls = self.tls else {
            self.inbound.append(contentsOf: self.readBuffer[0..<count])
            return true
        }
        self.readBuffer.withUnsafeBytes { tls.receiveCiphertext(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        var plaintext = [UInt8](repeating: 0, count: 16 * 1024)
        var open = true
        drain: while true {
            let read: TLSReadResult
            do {
                read = try plaintext.withUnsafeMutableBytes { buffer throws(TLSError) in
                    try tls.readPlaintext(into: buffer)
                }
            } catch {
                throw RollcallError(.transport("TLS: \(error)"))
            }
            switch read {
            case .bytes(let count): self.inbound.append(contentsOf: plaintext[0..<count])
            case .wouldBlock: break drain
            case .closed:
                open = false
                break drain
            }
        }
        try self.flushCiphertext(until: MonotonicClock.now() + self.options.writeTimeout)
        return open || !self.inbound.isEmpty
    }

    func completeTLSHandshake(until deadline: Double) throws(RollcallError) {
        let context: TLSContext
        if let given = self.options.tlsContext {
            context = given
        } else {
            do {
                context = try TLSContext.makeClient(verifyPeer: true, trustedCertificatePath: nil)
            } catch {
                throw RollcallError(.transport("TLS: \(error)"))
            }
        }
        let tls: TLSConnection
        do {
            tls = try TLSConnection(context: context, serverName: self.options.tlsServerName ?? self.endpoint.host)
        } catch {
            throw RollcallError(.transport("TLS: \(error)"))
        }
        self.tls = tls
        while true {
            let state: TLSHandshakeState
            do {
                state = try tls.advanceHandshake()
            } catch {
                try? self.flushCiphertext(until: deadline)
                throw RollcallError(.transport("TLS handshake: \(error)"))
            }
            try self.flushCiphertext(until: deadline)
            if state == .complete { return }
            guard try self.waitFor(Int16(POLLIN), until: deadline) else {
                throw RollcallError(.timedOut("the TLS handshake"))
            }
            let fd = self.fd
            let result: IOResult<Int>
            do {
                result = try self.readBuffer.withUnsafeMutableBytes { buffer throws(IOError) in
                    try Socket.read(fd, into: buffer)
                }
            } catch {
                throw RollcallError(.transport("TLS handshake: \(error)"))
            }
            if case .processed(let count) = result {
                guard count > 0 else { throw RollcallError(.transport("the server closed during the TLS handshake")) }
                self.readBuffer.withUnsafeBytes {
                    tls.receiveCiphertext(UnsafeRawBufferPointer(rebasing: $0[0..<count]))
                }
            }
        }
    }

    /// Reads up to the blank line that ends the response head; later bytes stay in `inbound`.
    func readResponseHead(until deadline: Double) throws(RollcallError) -> HTTPResponseHead {
        var parser = HTTPResponseParser()
        while true {
            switch self.inbound.withUnsafeBytes({ parser.parse($0) }) {
            case .complete(let head):
                self.inbound.removeFirst(head.size)
                return head
            case .failure(let error):
                throw RollcallError(.handshake(error.description))
            case .incomplete:
                break
            }
            guard try self.waitFor(Int16(POLLIN), until: deadline) else {
                throw RollcallError(.timedOut("the upgrade response"))
            }
            guard try self.receive() else {
                throw RollcallError(.handshake("the server closed the connection before answering the upgrade"))
            }
        }
    }

    /// The socket address of an endpoint: numeric addresses directly, names through the resolver.
    static func resolve(_ endpoint: RollcallEndpoint) throws(RollcallError) -> SocketAddress {
        let port = UInt16(clamping: endpoint.port)
        if let address = SocketAddress(ipv4: endpoint.host, port: port)
            ?? SocketAddress(ipv6: endpoint.host, port: port)
        {
            return address
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(endpoint.host, nil, &hints, &list) == 0, let first = list else {
            throw RollcallError(.transport("cannot resolve \(endpoint.host)"))
        }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            if current.pointee.ai_family == AF_INET, let raw = current.pointee.ai_addr {
                var address = UnsafeRawPointer(raw).load(as: sockaddr_in.self).sin_addr
                inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
                if let result = SocketAddress(ipv4: Self.string(fromNulTerminated: text), port: port) { return result }
            } else if current.pointee.ai_family == AF_INET6, let raw = current.pointee.ai_addr {
                var address = UnsafeRawPointer(raw).load(as: sockaddr_in6.self).sin6_addr
                inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
                if let result = SocketAddress(ipv6: Self.string(fromNulTerminated: text), port: port) { return result }
            }
            entry = current.pointee.ai_next
        }
        throw RollcallError(.transport("no address for \(endpoint.host)"))
    }

    /// The text of a C string buffer up to its first NUL.
    private static func string(fromNulTerminated buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

#endif

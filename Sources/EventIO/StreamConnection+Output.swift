extension StreamConnection {
    // MARK: Writing

    /// Queues `bytes`; on plain TCP the array is shared, not copied. They go out at the end of the loop iteration.
    ///
    /// - Parameter bytes: the bytes.
    public func write(_ bytes: [UInt8]) {
        guard self.acceptsWrites, !bytes.isEmpty else { return }
        if self.tls == nil {
            self.outbound.append(bytes)
        } else {
            self.plaintext.append(contentsOf: bytes)
        }
        self.didWrite()
    }

    /// Queues a copy of `bytes`, which the caller may reuse as soon as this returns.
    ///
    /// - Parameter bytes: the bytes.
    public func write(copying bytes: UnsafeRawBufferPointer) {
        guard self.acceptsWrites, !bytes.isEmpty else { return }
        if self.tls == nil {
            self.outbound.append(copying: bytes)
        } else {
            self.plaintext.append(contentsOf: bytes)
        }
        self.didWrite()
    }

    /// Queues `count` bytes that `fill` writes in place in the queue's own buffer, so a frame is encoded without an
    /// intermediate copy.
    ///
    /// - Parameters:
    ///   - count: how many bytes.
    ///   - fill: writes exactly `count` bytes into the buffer it is given; it must not touch this connection.
    @inline(__always)
    public func write(count: Int, _ fill: (UnsafeMutableRawBufferPointer) -> Void) {
        guard self.acceptsWrites, count > 0 else { return }
        if self.tls == nil {
            self.outbound.appendBytes(count: count, fill)
        } else {
            let start = self.plaintext.count
            self.plaintext.append(contentsOf: repeatElement(0, count: count))
            self.plaintext.withUnsafeMutableBytes { fill(UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
        }
        self.didWrite()
    }

    /// Queues what `encode` appends to the buffer it is given, for encoders that write into arrays.
    ///
    /// - Parameter encode: appends the bytes; it must not touch this connection.
    public func write(encoding encode: (inout [UInt8]) -> Void) {
        guard self.acceptsWrites else { return }
        if self.tls != nil {
            encode(&self.plaintext)
        } else {
            encode(&self.staging)
            self.staging.withUnsafeBytes { self.outbound.append(copying: $0) }
            self.staging.removeAll(keepingCapacity: self.staging.capacity <= Self.retainedBufferCapacity)
        }
        self.didWrite()
    }

    /// Writes what is queued now, instead of at the end of the loop iteration (a last frame before closing).
    public func flush() {
        self.isFlushScheduled = false
        guard self.phase == .open || self.phase == .handshaking else { return }
        if self.isOverQueueLimit {
            self.fail(.outputLimit(self.options.maximumQueuedBytes))
            return
        }
        if let tls = self.tls, tls.isHandshakeComplete, self.plaintextStart < self.plaintext.count {
            guard self.encrypt(tls) else { return }
        }
        let queued = self.outbound.byteCount
        let outcome: OutboundQueue.WriteOutcome
        do {
            outcome = try self.outbound.write(to: self.fd)
        } catch {
            self.fail(.send(error))
            return
        }
        self.options.statistics?.recordSent(queued - self.outbound.byteCount)
        switch outcome {
        case .pending:
            self.watchWritable(true)
        case .drained:
            self.watchWritable(false)
        }
    }

    /// Whether writes are taken: connecting or connected, and not past the queue's bound (the connection fails at the next flush).
    @inline(__always)
    private var acceptsWrites: Bool { self.phase != .closed && self.phase != .idle && !self.isOverQueueLimit }

    /// Counts the write against the bound and has the bytes written at the end of the loop iteration.
    @inline(__always)
    private func didWrite() {
        if self.queuedByteCount > self.options.maximumQueuedBytes {
            self.isOverQueueLimit = true
            // Failed from the loop, never inside the caller's write.
            if !self.isFlushScheduled {
                self.isFlushScheduled = true
                self.loop.scheduleFlush(self)
            }
            return
        }
        self.scheduleFlush()
    }

    /// Asks for a flush at the end of the iteration, unless one is coming or the socket's writability will call it.
    @inline(__always)
    func scheduleFlush() {
        guard !self.isFlushScheduled, !self.isWatchingWritable else { return }
        self.isFlushScheduled = true
        self.loop.scheduleFlush(self)
    }

    /// Encrypts the plaintext written so far into the queue; false when TLS failed.
    private func encrypt(_ tls: TLSConnection) -> Bool {
        while self.plaintextStart < self.plaintext.count {
            let start = self.plaintextStart
            let written = self.plaintext.withUnsafeBytes { bytes in
                Result { () throws(TLSError) in
                    try tls.writePlaintext(UnsafeRawBufferPointer(rebasing: bytes[start...]))
                }
            }
            let accepted: Int
            switch written {
            case .success(let count):
                accepted = count
            case .failure(let error):
                self.fail(.tls(error))
                return false
            }
            tls.takeCiphertext(into: &self.outbound)
            guard accepted > 0 else { break }
            self.plaintextStart += accepted
        }
        if self.plaintextStart == self.plaintext.count {
            self.plaintext.removeAll(keepingCapacity: self.plaintext.capacity <= Self.retainedBufferCapacity)
            self.plaintextStart = 0
        }
        return true
    }

    private func watchWritable(_ watch: Bool) {
        guard watch != self.isWatchingWritable, self.fd >= 0 else { return }
        self.isWatchingWritable = watch
        self.loop.modify(self.fd, for: watch ? [.readable, .writable] : [.readable])
    }
}

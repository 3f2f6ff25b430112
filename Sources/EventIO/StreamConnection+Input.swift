extension StreamConnection {
    // MARK: Reading

    /// Reads what the socket holds (a bounded number of times), decrypting over TLS, and hands it to the delegate.
    func readAvailable() {
        let buffer = self.loop.receiveBuffer
        for _ in 0..<self.options.readsPerWakeup {
            guard self.phase != .closed else { return }
            let result: IOResult<Int>
            do {
                result = try Socket.read(self.fd, into: buffer)
            } catch {
                self.fail(.receive(error))
                return
            }
            guard case .processed(let count) = result else { return }
            guard count > 0 else {
                self.end(.closedByPeer)
                return
            }
            self.options.statistics?.recordReceived(count)
            if let tls = self.tls {
                tls.receiveCiphertext(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                self.decrypt(tls)
            } else {
                self.deliver(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]))
            }
            if count < buffer.count { return }
        }
    }

    /// Moves the TLS handshake on and sends what it wrote; opens the connection once it completes.
    func advanceHandshake(_ tls: TLSConnection) {
        let state: TLSHandshakeState
        do {
            state = try tls.advanceHandshake()
        } catch {
            self.fail(.tlsHandshake(error))
            return
        }
        if tls.hasPendingCiphertext {
            tls.takeCiphertext(into: &self.outbound)
            self.flush()
        }
        guard self.phase == .handshaking, state == .complete else { return }
        self.open()
    }

    /// Over TLS: finishes the handshake with the ciphertext received, then decrypts and delivers every record.
    private func decrypt(_ tls: TLSConnection) {
        if self.phase == .handshaking {
            self.advanceHandshake(tls)
            guard self.phase == .open else { return }
        }
        let scratch = self.loop.scratchBuffer
        while self.phase == .open {
            let result: TLSReadResult
            do {
                result = try tls.readPlaintext(into: scratch)
            } catch {
                self.fail(.tls(error))
                return
            }
            // Records the engine wrote while reading (alerts, key updates) go out too.
            if tls.hasPendingCiphertext {
                tls.takeCiphertext(into: &self.outbound)
                self.scheduleFlush()
            }
            switch result {
            case .bytes(let count):
                self.deliver(UnsafeMutableRawBufferPointer(rebasing: scratch[0..<count]))
            case .wouldBlock:
                return
            case .closed:
                self.end(.closedByPeer)
                return
            }
        }
    }

    /// Hands `bytes` to the delegate behind any bytes it left unused before, and keeps what it leaves now.
    private func deliver(_ bytes: UnsafeMutableRawBufferPointer) {
        guard let delegate = self.delegate else { return }
        if self.buffered.isEmpty {
            // The common case: straight from the loop's buffer, nothing copied.
            let consumed = delegate.streamConnection(self, didReceive: bytes)
            guard self.phase == .open, consumed < bytes.count else { return }
            self.buffered.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[max(consumed, 0)...]))
            self.checkBufferedBound()
            return
        }
        // Moved out while the delegate reads it, so nothing else touches it meanwhile.
        var pending = self.buffered
        self.buffered = []
        pending.append(contentsOf: UnsafeRawBufferPointer(bytes))
        let consumed = pending.withUnsafeMutableBytes { delegate.streamConnection(self, didReceive: $0) }
        guard self.phase == .open else { return }
        if consumed >= pending.count {
            pending.removeAll(keepingCapacity: pending.capacity <= Self.retainedBufferCapacity)
        } else if consumed > 0 {
            pending.removeSubrange(0..<consumed)
        }
        self.buffered = pending
        self.checkBufferedBound()
    }

    private func checkBufferedBound() {
        guard self.buffered.count > self.options.maximumBufferedBytes else { return }
        self.fail(.inputLimit(self.options.maximumBufferedBytes))
    }
}

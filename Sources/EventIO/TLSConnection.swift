internal import CWebSocket

/// The TLS engine of one TCP connection, driven by an event loop through memory buffers.
///
/// The engine never touches a file descriptor. The loop feeds ciphertext read from the socket with
/// ``receiveCiphertext(_:)``, drives ``advanceHandshake()`` until it reports ``TLSHandshakeState/complete``, then
/// moves application data with ``readPlaintext(into:)`` and ``writePlaintext(_:)``. After every call, ciphertext the
/// engine produced (handshake messages, records, alerts) waits in the engine until the loop collects it with
/// ``takeCiphertext(into:)`` and writes it to the socket; ``hasPendingCiphertext`` says whether there is any.
///
/// A connection is confined to the thread that uses it: OpenSSL keeps its error queue per thread.
///
/// Memory: with `SSL_MODE_RELEASE_BUFFERS`, an idle established connection holds no record buffers; the staging
/// buffers are dropped when the handshake completes, and later swapped for empty ones once drained if they grew past
/// 16 KiB. Measured on x86-64 Linux with OpenSSL 3.0 (1,000 idle server engines after a TLS 1.3 handshake with a
/// P-256 certificate and one short message each way, resident set growth after `malloc_trim`): about 13.5 KiB per
/// idle connection, the engine object and its `SSL` included.
public final class TLSConnection {
    /// Staging buffers larger than this are replaced by empty ones once drained.
    private static let retainedStagingCapacity = 16 * 1024

    /// Beyond this much pending outbound ciphertext, ``writePlaintext(_:)`` accepts nothing more.
    public static let maximumPendingCiphertext = 256 * 1024

    private let ssl: OpaquePointer
    /// Ciphertext from the peer, read by OpenSSL. Owned by `ssl`.
    private var inbound: OpaquePointer
    /// Ciphertext for the peer, written by OpenSSL. Owned by `ssl`.
    private var outbound: OpaquePointer
    /// Keeps the `SSL_CTX` alive for as long as the `SSL` refers to it.
    private let context: TLSContext
    /// The first fatal failure; every later call reports it again.
    private var failure: TLSError?
    private var handshakeComplete = false

    /// Creates the engine of one connection.
    ///
    /// - Parameters:
    ///   - context: The configuration; its role decides whether this side accepts or connects.
    ///   - serverName: For clients, the name to send as SNI and, when the context verifies its peer, the name or IP
    ///     address the server certificate must match. Ignored by servers.
    /// - Throws: ``TLSError/Kind/invalidConfiguration`` when OpenSSL cannot allocate the connection or
    ///   refuses the server name.
    public init(context: TLSContext, serverName: String? = nil) throws(TLSError) {
        ERR_clear_error()
        guard let ssl = SSL_new(context.pointer) else {
            throw TLSError(.invalidConfiguration, "cannot create an OpenSSL connection")
        }
        guard let inbound = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw TLSError(.invalidConfiguration, "cannot create a memory buffer")
        }
        guard let outbound = BIO_new(BIO_s_mem()) else {
            BIO_free(inbound)
            SSL_free(ssl)
            throw TLSError(.invalidConfiguration, "cannot create a memory buffer")
        }
        SSL_set_bio(ssl, inbound, outbound)
        self.ssl = ssl
        self.inbound = inbound
        self.outbound = outbound
        self.context = context
        switch context.role {
        case .server:
            SSL_set_accept_state(ssl)
        case .client:
            SSL_set_connect_state(ssl)
            if let serverName {
                try self.configureServerName(serverName)
            }
        }
    }

    deinit {
        SSL_free(self.ssl)
    }

    /// Whether the handshake has completed.
    public var isHandshakeComplete: Bool {
        self.handshakeComplete
    }

    /// The negotiated protocol version, such as "TLSv1.3"; meaningful once the handshake has completed.
    public var protocolVersion: String {
        String(cString: SSL_get_version(self.ssl))
    }

    /// Whether ciphertext waits to be collected with ``takeCiphertext(into:)``.
    public var hasPendingCiphertext: Bool {
        BIO_ctrl_pending(self.outbound) > 0
    }

    /// Hands the engine ciphertext read from the socket.
    ///
    /// The bytes are copied; nothing is decrypted until the next call to ``advanceHandshake()`` or
    /// ``readPlaintext(into:)``.
    ///
    /// - Parameters:
    ///   - bytes: Bytes exactly as read from the socket.
    public func receiveCiphertext(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0, self.failure == nil else {
            return
        }
        var offset = 0
        while offset < bytes.count {
            let chunk = Int32(clamping: bytes.count - offset)
            let written = BIO_write(self.inbound, base + offset, chunk)
            guard written > 0 else {
                self.failure = TLSError(.connectionFailed, "cannot buffer \(bytes.count) bytes of ciphertext")
                return
            }
            offset += Int(written)
        }
    }

    /// Moves the handshake forward with the ciphertext received so far.
    ///
    /// Call it after every ``receiveCiphertext(_:)`` until it returns ``TLSHandshakeState/complete``, and collect
    /// pending ciphertext after each call. Once complete, further calls return ``TLSHandshakeState/complete``.
    ///
    /// - Returns: Whether the handshake has completed.
    /// - Throws: ``TLSError/Kind/handshakeFailed`` when the peer sent something that is not an
    ///   acceptable handshake (garbage, plain HTTP, an old protocol version, an untrusted certificate). A fatal alert
    ///   may then be pending for the peer; send it before closing the socket if convenient. A peer that sends a
    ///   plausible record header and then stalls is not an error here: bound the handshake with a timeout.
    public func advanceHandshake() throws(TLSError) -> TLSHandshakeState {
        if let failure = self.failure {
            throw failure
        }
        if self.handshakeComplete {
            return .complete
        }
        ERR_clear_error()
        let result = SSL_do_handshake(self.ssl)
        if result == 1 {
            self.completeHandshake()
            return .complete
        }
        switch SSL_get_error(self.ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return .inProgress
        default:
            throw self.fail(.handshakeFailed, "handshake")
        }
    }

    /// Decrypts buffered application data.
    ///
    /// Completes the handshake first if it has not completed yet. Call it repeatedly until it returns
    /// ``TLSReadResult/wouldBlock``: one call returns at most one record's worth of plaintext.
    ///
    /// - Parameters:
    ///   - buffer: Where to put plaintext.
    /// - Returns: The number of bytes decrypted into the start of `buffer`, ``TLSReadResult/wouldBlock`` when more
    ///   ciphertext is needed, or ``TLSReadResult/closed`` once the peer has sent close_notify.
    /// - Throws: ``TLSError/Kind/handshakeFailed`` for a handshake failure,
    ///   ``TLSError/Kind/connectionFailed`` for a corrupt record or a fatal alert.
    public func readPlaintext(into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> TLSReadResult {
        if let failure = self.failure {
            throw failure
        }
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            return .wouldBlock
        }
        ERR_clear_error()
        var count = 0
        let result = SSL_read_ex(self.ssl, base, buffer.count, &count)
        if !self.handshakeComplete && SSL_is_init_finished(self.ssl) == 1 {
            self.completeHandshake()
        }
        if result == 1 {
            return .bytes(count)
        }
        switch SSL_get_error(self.ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            self.compactInbound()
            return .wouldBlock
        case SSL_ERROR_ZERO_RETURN:
            return .closed
        default:
            let kind: TLSError.Kind = self.handshakeComplete ? .connectionFailed : .handshakeFailed
            throw self.fail(kind, "read")
        }
    }

    /// Encrypts application data into pending ciphertext.
    ///
    /// Accepts nothing before the handshake has completed, and nothing while more than
    /// ``maximumPendingCiphertext`` bytes of ciphertext wait to be collected; collect, then offer the rest again.
    ///
    /// - Parameters:
    ///   - bytes: Plaintext to send.
    /// - Returns: How many bytes of `bytes` were accepted, from the start; possibly fewer than offered, possibly 0.
    /// - Throws: ``TLSError/Kind/connectionFailed`` when the connection has failed or was shut down.
    public func writePlaintext(_ bytes: UnsafeRawBufferPointer) throws(TLSError) -> Int {
        if let failure = self.failure {
            throw failure
        }
        guard let base = bytes.baseAddress, bytes.count > 0, self.handshakeComplete else {
            return 0
        }
        var accepted = 0
        while accepted < bytes.count && BIO_ctrl_pending(self.outbound) < TLSConnection.maximumPendingCiphertext {
            ERR_clear_error()
            var written = 0
            let result = SSL_write_ex(self.ssl, base + accepted, bytes.count - accepted, &written)
            if result == 1 {
                accepted += written
                continue
            }
            switch SSL_get_error(self.ssl, result) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return accepted
            default:
                throw self.fail(.connectionFailed, "write")
            }
        }
        return accepted
    }

    /// Appends all pending ciphertext to `buffer`, for the loop to write to the socket.
    ///
    /// - Parameters:
    ///   - buffer: Where to append the ciphertext.
    /// - Returns: The number of bytes appended.
    @discardableResult
    public func takeCiphertext(into buffer: inout [UInt8]) -> Int {
        let pending = BIO_ctrl_pending(self.outbound)
        guard pending > 0 else {
            return 0
        }
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: pending))
        let read = buffer.withUnsafeMutableBytes { bytes in
            BIO_read(self.outbound, bytes.baseAddress! + start, Int32(clamping: pending))
        }
        let taken = max(Int(read), 0)
        buffer.removeLast(pending - taken)
        self.compactOutbound()
        return taken
    }

    /// Appends all pending ciphertext to a write queue's own buffer, for the loop to write to the socket; the
    /// buffer is reused once drained, so steady traffic costs no allocation here.
    ///
    /// - Parameters:
    ///   - queue: the connection's write queue.
    /// - Returns: The number of bytes appended.
    @discardableResult
    public func takeCiphertext(into queue: inout OutboundQueue) -> Int {
        let pending = BIO_ctrl_pending(self.outbound)
        guard pending > 0 else {
            return 0
        }
        var taken = 0
        queue.appendBytes(upTo: pending) { bytes in
            taken = max(Int(BIO_read(self.outbound, bytes.baseAddress, Int32(clamping: pending))), 0)
            return taken
        }
        self.compactOutbound()
        return taken
    }

    /// Queues close_notify for the peer. Collect it with ``takeCiphertext(into:)`` and write it before closing.
    ///
    /// Does nothing before the handshake has completed or after a failure: the socket is simply closed then.
    public func shutdown() {
        guard self.handshakeComplete, self.failure == nil else {
            return
        }
        ERR_clear_error()
        _ = SSL_shutdown(self.ssl)
        ERR_clear_error()
    }

    /// Marks the handshake complete and drops its staging buffers, which are not needed again whatever their size.
    private func completeHandshake() {
        self.handshakeComplete = true
        self.compactInbound(retaining: 0)
        self.compactOutbound(retaining: 0)
    }

    /// Records and returns a fatal failure with the OpenSSL error queue.
    private func fail(_ kind: TLSError.Kind, _ operation: String) -> TLSError {
        var message = "\(operation) failed"
        if !self.handshakeComplete, self.context.verifiesPeer {
            let verification = SSL_get_verify_result(self.ssl)
            if verification != X509_V_OK {
                message += ", certificate verification: " + String(cString: X509_verify_cert_error_string(verification))
            }
        }
        let error = TLSError(kind, message)
        self.failure = error
        return error
    }

    /// Sends the server name and, when verifying, checks the certificate against it.
    private func configureServerName(_ serverName: String) throws(TLSError) {
        // An IP address is checked against the certificate's IP addresses and never sent as SNI (RFC 6066 §3).
        let isAddress = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(self.ssl), serverName) == 1
        if isAddress {
            if !self.context.verifiesPeer {
                _ = X509_VERIFY_PARAM_set1_ip(SSL_get0_param(self.ssl), nil, 0)
            }
            return
        }
        ERR_clear_error()
        guard CWebSocket_SSL_set_tlsext_host_name(self.ssl, serverName) == 1 else {
            throw TLSError(.invalidConfiguration, "cannot use \(serverName) as the server name")
        }
        if self.context.verifiesPeer {
            guard SSL_set1_host(self.ssl, serverName) == 1 else {
                throw TLSError(.invalidConfiguration, "cannot check the certificate against \(serverName)")
            }
        }
    }

    /// Replaces the inbound buffer by an empty one when it is drained and its capacity exceeds `capacity`.
    private func compactInbound(retaining capacity: Int = TLSConnection.retainedStagingCapacity) {
        guard let replacement = self.replacement(for: self.inbound, retaining: capacity) else {
            return
        }
        SSL_set0_rbio(self.ssl, replacement)
        self.inbound = replacement
    }

    /// Replaces the outbound buffer by an empty one when it is drained and its capacity exceeds `capacity`.
    private func compactOutbound(retaining capacity: Int = TLSConnection.retainedStagingCapacity) {
        guard let replacement = self.replacement(for: self.outbound, retaining: capacity) else {
            return
        }
        SSL_set0_wbio(self.ssl, replacement)
        self.outbound = replacement
    }

    /// A fresh memory buffer to stand in for `bio`, or nil when `bio` holds data or its capacity is at most
    /// `capacity`.
    private func replacement(for bio: OpaquePointer, retaining capacity: Int) -> OpaquePointer? {
        guard BIO_ctrl_pending(bio) == 0 else {
            return nil
        }
        var memory: UnsafeMutablePointer<BUF_MEM>?
        guard CWebSocket_BIO_get_mem_ptr(bio, &memory) == 1, let memory,
            memory.pointee.max > capacity
        else {
            return nil
        }
        return BIO_new(BIO_s_mem())
    }
}

@available(*, unavailable)
extension TLSConnection: Sendable {}

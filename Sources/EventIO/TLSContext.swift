internal import CWebSocket

/// Shared TLS configuration: a wrapped `SSL_CTX` from which ``TLSConnection``s are created.
///
/// A context is immutable once built and may be shared by every event loop thread; OpenSSL allows creating
/// connections from one context concurrently.
///
/// Policy: TLS 1.2 is the minimum, ciphers are OpenSSL's defaults, TLS 1.2 renegotiation is refused, and session
/// resumption is off (no session cache, no TLS 1.2 tickets, no TLS 1.3 tickets). WebSocket connections are long
/// lived, so resumption saves little while it costs a ticket key to manage and bytes on every handshake. Buffers are
/// released while a connection is idle (`SSL_MODE_RELEASE_BUFFERS`), and writes may be partial and may move
/// between retries.
public final class TLSContext: @unchecked Sendable {
    /// Which side of the handshake connections from this context play.
    enum Role: Sendable {
        case server
        case client
    }

    let pointer: OpaquePointer
    let role: Role
    let verifiesPeer: Bool

    private init(pointer: OpaquePointer, role: Role, verifiesPeer: Bool) {
        self.pointer = pointer
        self.role = role
        self.verifiesPeer = verifiesPeer
    }

    deinit {
        SSL_CTX_free(self.pointer)
    }

    /// Creates a server context from PEM files.
    ///
    /// - Parameters:
    ///   - certificateChainPath: A PEM file holding the server certificate first, then any intermediates.
    ///   - privateKeyPath: A PEM file holding the private key of the server certificate.
    /// - Returns: The server context.
    /// - Throws: ``TLSError/Kind/invalidConfiguration`` naming the file that could not be loaded, or the
    ///   key file when the key does not match the certificate.
    public static func makeServer(certificateChainPath: String, privateKeyPath: String) throws(TLSError) -> TLSContext {
        let context = try TLSContext.make(role: .server, verifiesPeer: false)
        let pointer = context.pointer
        ERR_clear_error()
        guard SSL_CTX_use_certificate_chain_file(pointer, certificateChainPath) == 1 else {
            throw TLSError(.invalidConfiguration, "cannot load certificate chain from \(certificateChainPath)")
        }
        guard SSL_CTX_use_PrivateKey_file(pointer, privateKeyPath, SSL_FILETYPE_PEM) == 1 else {
            throw TLSError(.invalidConfiguration, "cannot load private key from \(privateKeyPath)")
        }
        guard SSL_CTX_check_private_key(pointer) == 1 else {
            throw TLSError(
                .invalidConfiguration,
                "private key in \(privateKeyPath) does not match the certificate in \(certificateChainPath)"
            )
        }
        _ = CWebSocket_SSL_CTX_set_session_cache_mode(pointer, Int(SSL_SESS_CACHE_OFF))
        _ = SSL_CTX_set_options(pointer, CWebSocket_SSL_OP_CIPHER_SERVER_PREFERENCE)
        return context
    }

    /// Creates a client context, for tests and load generation.
    ///
    /// - Parameters:
    ///   - verifyPeer: Whether the server certificate must verify; when true, a connection given a server name also
    ///     checks that the certificate is for that name or IP address.
    ///   - trustedCertificatePath: A PEM file of certificates to trust; nil trusts the system's default store.
    /// - Returns: The client context.
    /// - Throws: ``TLSError/Kind/invalidConfiguration`` when the trusted certificates cannot be loaded.
    public static func makeClient(verifyPeer: Bool, trustedCertificatePath: String?) throws(TLSError) -> TLSContext {
        try TLSContext.makeClient(
            verifyPeer: verifyPeer,
            trustedCertificatePath: trustedCertificatePath,
            maximumProtocolVersion: nil
        )
    }

    /// Creates a client context, optionally capped at an older protocol version to exercise the server's floor.
    ///
    /// - Parameters:
    ///   - verifyPeer: Whether the server certificate must verify.
    ///   - trustedCertificatePath: A PEM file of certificates to trust; nil trusts the system's default store.
    ///   - maximumProtocolVersion: An OpenSSL version constant such as `TLS1_1_VERSION`; nil for no cap. A cap below
    ///     TLS 1.2 also lowers the minimum and the security level so that the client really offers it.
    static func makeClient(
        verifyPeer: Bool,
        trustedCertificatePath: String?,
        maximumProtocolVersion: Int32?
    ) throws(TLSError) -> TLSContext {
        let context = try TLSContext.make(role: .client, verifiesPeer: verifyPeer)
        let pointer = context.pointer
        ERR_clear_error()
        if verifyPeer {
            SSL_CTX_set_verify(pointer, SSL_VERIFY_PEER, nil)
            if let trustedCertificatePath {
                guard SSL_CTX_load_verify_locations(pointer, trustedCertificatePath, nil) == 1 else {
                    throw TLSError(
                        .invalidConfiguration,
                        "cannot load trusted certificates from \(trustedCertificatePath)"
                    )
                }
            } else {
                guard SSL_CTX_set_default_verify_paths(pointer) == 1 else {
                    throw TLSError(.invalidConfiguration, "cannot load the default trusted certificates")
                }
            }
        } else {
            SSL_CTX_set_verify(pointer, SSL_VERIFY_NONE, nil)
        }
        if let maximumProtocolVersion {
            if maximumProtocolVersion < TLS1_2_VERSION {
                SSL_CTX_set_security_level(pointer, 0)
                _ = CWebSocket_SSL_CTX_set_min_proto_version(pointer, 0)
            }
            guard CWebSocket_SSL_CTX_set_max_proto_version(pointer, maximumProtocolVersion) == 1 else {
                throw TLSError(.invalidConfiguration, "cannot cap the protocol version at \(maximumProtocolVersion)")
            }
        }
        return context
    }

    /// Creates a context with the settings both roles share.
    private static func make(role: Role, verifiesPeer: Bool) throws(TLSError) -> TLSContext {
        ERR_clear_error()
        let method = role == .server ? TLS_server_method() : TLS_client_method()
        guard let pointer = SSL_CTX_new(method) else {
            throw TLSError(.invalidConfiguration, "cannot create an OpenSSL context")
        }
        let context = TLSContext(pointer: pointer, role: role, verifiesPeer: verifiesPeer)
        guard CWebSocket_SSL_CTX_set_min_proto_version(pointer, TLS1_2_VERSION) == 1 else {
            throw TLSError(.invalidConfiguration, "cannot set TLS 1.2 as the minimum protocol version")
        }
        let mode = SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER
        _ = CWebSocket_SSL_CTX_set_mode(pointer, Int(mode))
        _ = SSL_CTX_set_options(pointer, CWebSocket_SSL_OP_NO_TICKET | CWebSocket_SSL_OP_NO_RENEGOTIATION)
        guard SSL_CTX_set_num_tickets(pointer, 0) == 1 else {
            throw TLSError(.invalidConfiguration, "cannot disable TLS 1.3 session tickets")
        }
        return context
    }
}

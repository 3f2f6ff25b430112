import Glibc
import Testing

@testable import EventIO

/// A temporary directory with a fresh self-signed certificate, removed by ``remove()``.
private struct CertificateDirectory {
    let path: String
    let certificate: TLSSelfSignedCertificate

    init() throws {
        var template = Array(("/tmp/rollcall-tls-" + String(repeating: "X", count: 6)).utf8CString)  // mkdtemp template
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard created != nil else {
            throw TLSError(.certificateGenerationFailed, "cannot create a temporary directory")
        }
        self.path = String(cString: template)
        self.certificate = try TLSSelfSignedCertificate.generate(in: self.path)
    }

    func remove() {
        unlink(self.certificate.certificatePath)
        unlink(self.certificate.privateKeyPath)
        rmdir(self.path)
    }
}

/// Moves all pending ciphertext from `source` to `destination`; returns the number of bytes moved.
@discardableResult
private func transfer(from source: TLSConnection, to destination: TLSConnection) -> Int {
    var bytes: [UInt8] = []
    let count = source.takeCiphertext(into: &bytes)
    bytes.withUnsafeBytes { destination.receiveCiphertext($0) }
    return count
}

/// Drives both handshakes, moving ciphertext between them, until both complete.
private func handshake(client: TLSConnection, server: TLSConnection) throws {
    for _ in 0..<16 {
        let clientState = try client.advanceHandshake()
        transfer(from: client, to: server)
        let serverState = try server.advanceHandshake()
        transfer(from: server, to: client)
        if clientState == .complete && serverState == .complete {
            return
        }
    }
    Issue.record("the handshake did not complete after 16 round trips")
}

/// Reads all plaintext that `connection` can decrypt right now.
private func readAvailable(_ connection: TLSConnection, into output: inout [UInt8]) throws -> TLSReadResult {
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
        let result = try buffer.withUnsafeMutableBytes { try connection.readPlaintext(into: $0) }
        switch result {
        case .bytes(let count):
            output.append(contentsOf: buffer[..<count])
        case .wouldBlock, .closed:
            return result
        }
    }
}

/// Sends `payload` from `sender` to `receiver` in pieces of `pieceSize`, honouring partial acceptance.
private func send(
    _ payload: [UInt8], pieceSize: Int, from sender: TLSConnection, to receiver: TLSConnection
) throws
    -> [UInt8]
{
    var received: [UInt8] = []
    var offset = 0
    while offset < payload.count {
        let end = min(offset + pieceSize, payload.count)
        let accepted = try payload[offset..<end].withUnsafeBytes { try sender.writePlaintext($0) }
        offset += accepted
        transfer(from: sender, to: receiver)
        _ = try readAvailable(receiver, into: &received)
    }
    transfer(from: sender, to: receiver)
    _ = try readAvailable(receiver, into: &received)
    return received
}

private func makePair(
    _ directory: CertificateDirectory,
    verifyPeer: Bool = true,
    serverName: String? = "localhost"
) throws -> (client: TLSConnection, server: TLSConnection) {
    let serverContext = try TLSContext.makeServer(
        certificateChainPath: directory.certificate.certificatePath,
        privateKeyPath: directory.certificate.privateKeyPath
    )
    let clientContext = try TLSContext.makeClient(
        verifyPeer: verifyPeer,
        trustedCertificatePath: directory.certificate.certificatePath
    )
    return (
        try TLSConnection(context: clientContext, serverName: serverName),
        try TLSConnection(context: serverContext)
    )
}

/// Feeds `bytes` to a fresh server engine and returns what its handshake throws.
private func serverError(receiving bytes: [UInt8], directory: CertificateDirectory) throws -> TLSError? {
    let server = try makePair(directory).server
    bytes.withUnsafeBytes { server.receiveCiphertext($0) }
    do {
        let state = try server.advanceHandshake()
        Issue.record("the handshake went on with state \(state)")
        return nil
    } catch {
        return error
    }
}

@Suite("TLS engine")
struct TLSEngineTests {
    @Test("A client that verifies the server completes a TLS 1.3 handshake in memory")
    func handshakeCompletes() throws {
        let directory = try CertificateDirectory()
        defer { directory.remove() }
        let (client, server) = try makePair(directory)
        #expect(!client.isHandshakeComplete)
        try handshake(client: client, server: server)
        #expect(client.isHandshakeComplete)
        #expect(server.isHandshakeComplete)
        #expect(client.protocolVersion == "TLSv1.3")
        #expect(server.protocolVersion == "TLSv1.3")
        #expect(!client.hasPendingCiphertext)
        #expect(!server.hasPendingCiphertext)
    }

    @Test("Plaintext crosses both ways, including a 1 MiB payload in pieces")
    func plaintextFlowsBothWays() throws {
        let directory = try CertificateDirectory()
        defer { directory.remove() }
        let (client, server) = try makePair(directory)
        try handshake(client: client, server: server)

        let hello = Array("hello, server".utf8)
        #expect(try send(hello, pieceSize: 100, from: client, to: server) == hello)
        let reply = Array("hello, client".utf8)
        #expect(try send(reply, pieceSize: 100, from: server, to: client) == reply)

        var generator = SystemRandomNumberGenerator()
        let payload = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(try send(payload, pieceSize: 10_000, from: client, to: server) == payload)
        #expect(try send(payload, pieceSize: 65_537, from: server, to: client) == payload)
    }

    @Test("Writing more than the engine will stage is accepted partially, and the rest goes after draining")
    func writesApplyBackPressure() throws {
        let directory = try CertificateDirectory()
        defer { directory.remove() }
        let (client, server) = try makePair(directory)
        try handshake(client: client, server: server)
        let payload = [UInt8](repeating: 0x5A, count: 1 << 20)
        let accepted = try payload.withUnsafeBytes { try client.writePlaintext($0) }
        #expect(accepted > 0)
        #expect(accepted < payload.count)
        #expect(accepted <= TLSConnection.maximumPendingCiphertext + 16 * 1024)
        let again = try payload[accepted...].withUnsafeBytes { try client.writePlaintext($0) }
        #expect(again == 0)
        var received: [UInt8] = []
        transfer(from: client, to: server)
        _ = try readAvailable(server, into: &received)
        #expect(received.count == accepted)
        received += try send(Array(payload[accepted...]), pieceSize: payload.count, from: client, to: server)
        #expect(received == payload)
    }

    @Test("Nothing is written before the handshake completes")
    func writeBeforeHandshakeAcceptsNothing() throws {
        let directory = try CertificateDirectory()
        defer { directory.remove() }
        let (client, _) = try makePair(directory)
        let accepted = try Array("early".utf8).withUnsafeBytes { try client.writePlaintext($0) }
        #expect(accepted == 0)
    }

    @Test("A server refuses garbage where a ClientHello belongs")
    func garbageIsRefused() throws {
        let directory = try CertificateDirectory()
        defer { directory.remove() }
        let garbage: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let error = try serverError(receiving: garbage, directory: directory)
        #expect(error?.kind == .handshakeFailed)
    }

    @Test("A server refuses plain HTTP with an error that explains why")
    func plainHTTPIsRefused() throws {
        let directory = try CertificateDirectory()
        defer { directory.remove() }
        let request = Array("GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n\r\n".utf8)
        let error = try serverError(receiving: request, directory: directory)
        #expect(error?.kind == .handshakeFailed)
        #expect(error?.description.contains("http request") == true)
    }

    @Test("A failed engine keeps reporting its failure")
    func failureIsSticky() throws {
        let directory = try CertificateDirectory()
        defer { directory.remove() }
        let server = try makePair(directory).server
        Array("GET / HTTP/1.1\r\n\r\n".utf8).withUnsafeBytes { server.receiveCiphertext($0) }
        #expect(throws: TLSError.self) { try server.advanceHandshake() }
        var buffer = [UInt8](repeating: 0, count: 64)
        #expect(throws: TLSError.self) {
            try buffer.withUnsafeMutableBytes { try server.readPlaintext(into: $0) }
        }
    }

    @Test("A server context refuses a private key that does not match the certificate, naming the key file")
    func mismatchedKeyIsRefused() throws {
        let first = try CertificateDirectory()
        defer { first.remove() }
        let second = try CertificateDirectory()
        defer { second.remove() }
        let error = #expect(throws: TLSError.self) {
            try TLSContext.makeServer(
                certificateChainPath: first.certificate.certificatePath,
                privateKeyPath: second.certificate.privateKeyPath
            )
        }
        #expect(error?.kind == .invalidConfiguration)
        #expect(error?.description.contains(second.certificate.privateKeyPath) == true)
    }

    @Test("A server context refuses a missing certificate file, naming it")
    func missingCertificateIsRefused() throws {
        let directory = try CertificateDirectory()
        defer { directory.remove() }
        let missing = directory.path + "/missing.pem"
        let error = #expect(throws: TLSError.self) {
            try TLSContext.makeServer(
                certificateChainPath: missing,
                privateKeyPath: directory.certificate.privateKeyPath
            )
        }
        #expect(error?.kind == .invalidConfiguration)
        #expect(error?.description.contains(missing) == true)
    }

    @Test("close_notify from the client reads as closed on the server, and back")
    func closeNotifyIsSeenAsClosed() throws {
        let directory = try CertificateDirectory()
        defer { directory.remove() }
        let (client, server) = try makePair(directory)
        try handshake(client: client, server: server)
        let last = Array("last words".utf8)
        #expect(try last.withUnsafeBytes { try client.writePlaintext($0) } == last.count)
        client.shutdown()
        #expect(client.hasPendingCiphertext)
        transfer(from: client, to: server)
        var received: [UInt8] = []
        #expect(try readAvailable(server, into: &received) == .closed)
        #expect(received == last)
        server.shutdown()
        transfer(from: server, to: client)
        #expect(try readAvailable(client, into: &received) == .closed)
    }

    @Test("A client capped at TLS 1.1 cannot complete a handshake with the server")
    func tls11ClientIsRefused() throws {
        let directory = try CertificateDirectory()
        defer { directory.remove() }
        let serverContext = try TLSContext.makeServer(
            certificateChainPath: directory.certificate.certificatePath,
            privateKeyPath: directory.certificate.privateKeyPath
        )
        let clientContext = try TLSContext.makeClient(
            verifyPeer: false,
            trustedCertificatePath: nil,
            maximumProtocolVersion: 0x0302  // TLS 1.1
        )
        let client = try TLSConnection(context: clientContext)
        let server = try TLSConnection(context: serverContext)
        #expect(try client.advanceHandshake() == .inProgress)
        #expect(transfer(from: client, to: server) > 0)
        let error = #expect(throws: TLSError.self) { try server.advanceHandshake() }
        #expect(error?.kind == .handshakeFailed)
        #expect(error?.description.contains("unsupported protocol") == true)
        transfer(from: server, to: client)
        #expect(throws: TLSError.self) { try client.advanceHandshake() }
    }

    @Test("A verifying client refuses a certificate for another host name")
    func hostNameMismatchIsRefused() throws {
        let directory = try CertificateDirectory()
        defer { directory.remove() }
        let (client, server) = try makePair(directory, serverName: "example.com")
        let error = #expect(throws: TLSError.self) { try handshake(client: client, server: server) }
        #expect(error?.kind == .handshakeFailed)
        #expect(error?.description.contains("hostname mismatch") == true)
    }

    @Test("A verifying client accepts the certificate for its IP address")
    func ipAddressMatches() throws {
        let directory = try CertificateDirectory()
        defer { directory.remove() }
        let (client, server) = try makePair(directory, serverName: "127.0.0.1")
        try handshake(client: client, server: server)
        #expect(client.isHandshakeComplete)
    }

    @Test("A verifying client refuses a certificate it does not trust, unless verification is off")
    func untrustedCertificateIsRefused() throws {
        let directory = try CertificateDirectory()
        defer { directory.remove() }
        let other = try CertificateDirectory()
        defer { other.remove() }
        let serverContext = try TLSContext.makeServer(
            certificateChainPath: directory.certificate.certificatePath,
            privateKeyPath: directory.certificate.privateKeyPath
        )
        let verifying = try TLSContext.makeClient(
            verifyPeer: true,
            trustedCertificatePath: other.certificate.certificatePath
        )
        let refused = try TLSConnection(context: verifying, serverName: "localhost")
        let error = #expect(throws: TLSError.self) {
            try handshake(client: refused, server: try TLSConnection(context: serverContext))
        }
        #expect(error?.kind == .handshakeFailed)

        let trusting = try TLSContext.makeClient(verifyPeer: false, trustedCertificatePath: nil)
        let accepted = try TLSConnection(context: trusting, serverName: "localhost")
        try handshake(client: accepted, server: try TLSConnection(context: serverContext))
        #expect(accepted.isHandshakeComplete)
    }

    @Test("The generated private key is readable by its owner only")
    func privateKeyIsPrivate() throws {
        let directory = try CertificateDirectory()
        defer { directory.remove() }
        var status = stat()
        #expect(stat(directory.certificate.privateKeyPath, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
    }
}

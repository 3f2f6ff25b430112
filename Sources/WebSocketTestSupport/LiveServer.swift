import EventIO
import Foundation
import Glibc
import WebSocketServer

/// A server started for one test, on loopback port 0, with the echo endpoint on.
public final class LiveServer: @unchecked Sendable {
    /// The running server.
    public let server: Server
    /// The plain listener's bound address.
    public let address: SocketAddress
    /// The TLS listener's bound address, when TLS was configured.
    public let tlsAddress: SocketAddress?
    private let stopLock = NSLock()
    private var isStopped = false

    /// Starts a server; `configure` adjusts the test defaults.
    public init(_ configure: (inout ServerConfiguration) -> Void = { _ in }, httpRoutes: [HTTPRoute] = []) throws {
        var configuration = ServerConfiguration()
        configuration.listen = [SocketAddress(parsing: "127.0.0.1:0")!]
        configuration.echoEnabled = true
        configuration.eventLoopCount = 1
        configuration.shutdownGracePeriodMilliseconds = 300
        configuration.closeTimeoutMilliseconds = 1_000
        configure(&configuration)
        let server = Server(configuration: configuration, httpRoutes: httpRoutes)
        try server.start()
        self.server = server
        self.address = server.localAddresses.first!
        self.tlsAddress = server.localTLSAddresses.first
    }

    deinit {
        self.stop()
    }

    /// Shuts the server down gracefully (once; safe to call from any thread).
    public func stop() {
        let isFirst = self.stopLock.withLock {
            defer { self.isStopped = true }
            return !self.isStopped
        }
        if isFirst { self.server.shutDownGracefully() }
    }

    /// A connected client that finished the handshake on `/echo`.
    public func openClient(tls: TLSContext? = nil, extraHeaders: [(String, String)] = []) throws -> TestClient {
        let client = try TestClient(connectingTo: tls == nil ? self.address : self.tlsAddress!, tls: tls)
        let response = try client.handshake(extraHeaders: extraHeaders)
        guard response.status == 101 else { throw TestClientError("handshake answered \(response.status)") }
        return client
    }

    /// Runs `body` with a started server and stops it afterwards, whatever happens.
    public static func with<Result>(
        _ configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (LiveServer) throws -> Result
    ) throws -> Result {
        let server = try LiveServer(configure)
        defer { server.stop() }
        return try body(server)
    }
}

/// A temporary directory holding a fresh self-signed certificate for 127.0.0.1, removed by `remove()`.
public struct TemporaryCertificate {
    /// The temporary directory.
    public let directory: String
    /// The certificate and private key files in it.
    public let certificate: TLSSelfSignedCertificate

    /// Creates the directory and a certificate in it.
    public init() throws {
        let base = NSTemporaryDirectory().hasSuffix("/") ? NSTemporaryDirectory() : NSTemporaryDirectory() + "/"
        // A mkdtemp template.
        var template = Array((base + "rollcall-live-" + String(repeating: "X", count: 6)).utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw TestClientError("cannot create a temporary directory")
        }
        self.directory = String(cString: template)
        self.certificate = try TLSSelfSignedCertificate.generate(in: self.directory)
    }

    /// A client context that trusts only this certificate.
    public func clientContext() throws -> TLSContext {
        try TLSContext.makeClient(verifyPeer: true, trustedCertificatePath: self.certificate.certificatePath)
    }

    /// Removes the certificate, its key and the directory.
    public func remove() {
        unlink(self.certificate.certificatePath)
        unlink(self.certificate.privateKeyPath)
        rmdir(self.directory)
    }
}

/// Deterministic pseudo-random bytes, so failures reproduce.
public func testBytes(count: Int, seed: UInt64 = 0x9e37_79b9_7f4a_7c15) -> [UInt8] {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        bytes[index] = UInt8(truncatingIfNeeded: state >> 33)
    }
    return bytes
}

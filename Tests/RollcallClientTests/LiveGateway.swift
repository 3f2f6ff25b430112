import EventIO
import Foundation
import Glibc
import RollcallClient
import RollcallServer
import Rooms
import TokenAuth
import WebSocketServer

/// Why a test setup step failed.
struct LiveGatewayError: Error, CustomStringConvertible {
    let description: String
}

/// A gateway started for one test: `GatewayRuntime` and `Server` on loopback port 0, in this process.
final class LiveGateway: @unchecked Sendable {
    let runtime: GatewayRuntime
    let server: Server
    let signer: TokenSigner
    let address: SocketAddress
    let tlsAddress: SocketAddress?
    let certificateDirectory: String?
    let certificatePath: String?

    /// Starts a gateway.
    ///
    /// - Parameters:
    ///   - compression: whether the server accepts permessage-deflate.
    ///   - tls: whether to add a TLS listener with a fresh self-signed certificate.
    ///   - leeway: the token verifier's tolerance, in seconds.
    init(compression: Bool = true, tls: Bool = false, leeway: Int64 = TokenVerifier.defaultLeeway) throws {
        let key = try TokenKey(secret: "rollcall-client-tests-secret-0123456789abcdef")
        self.signer = TokenSigner(key: key)
        let verifier = try TokenVerifier(keys: [key], leeway: leeway)
        var rooms = RoomsConfiguration()
        rooms.patchWindowMilliseconds = 20
        self.runtime = try GatewayRuntime(configuration: rooms, verifier: verifier)
        var configuration = ServerConfiguration()
        configuration.listen = [SocketAddress(parsing: "127.0.0.1:0")!]
        configuration.eventLoopCount = 1
        configuration.shutdownGracePeriodMilliseconds = 300
        configuration.closeTimeoutMilliseconds = 1_000
        configuration.compression.isEnabled = compression
        if tls {
            let base = NSTemporaryDirectory().hasSuffix("/") ? NSTemporaryDirectory() : NSTemporaryDirectory() + "/"
            // A mkdtemp template.
            var template = Array((base + "rollcall-client-" + String(repeating: "X", count: 6)).utf8CString)
            guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
                throw LiveGatewayError(description: "cannot create a temporary directory")
            }
            let directory = String(cString: template)
            let certificate = try TLSSelfSignedCertificate.generate(in: directory)
            configuration.tlsListen = [SocketAddress(parsing: "127.0.0.1:0")!]
            configuration.tlsCertificatePath = certificate.certificatePath
            configuration.tlsPrivateKeyPath = certificate.privateKeyPath
            self.certificateDirectory = directory
            self.certificatePath = certificate.certificatePath
        } else {
            self.certificateDirectory = nil
            self.certificatePath = nil
        }
        self.server = Server(configuration: configuration, routes: [self.runtime.route])
        self.runtime.start()
        do {
            try self.server.start()
        } catch {
            self.runtime.stop()
            throw error
        }
        self.address = self.server.localAddresses[0]
        self.tlsAddress = self.server.localTLSAddresses.first
    }

    /// Shuts the server and the gateway down and removes the certificate files.
    func stop() {
        self.server.shutDownGracefully()
        self.runtime.stop()
        if let directory = self.certificateDirectory {
            unlink(directory + "/certificate.pem")
            unlink(directory + "/private-key.pem")
            rmdir(directory)
        }
    }

    /// A signed token that expires in `ttl` seconds.
    func token(
        _ uid: String, rooms: [String: TokenRole] = [:], groups: [String] = [], ttl: Int64 = 3600
    ) throws -> String {
        let claims = TokenClaims(
            subject: uid, expiresAt: Int64(Date().timeIntervalSince1970) + ttl, name: uid.capitalized,
            rooms: rooms, groups: groups
        )
        return try self.signer.sign(claims)
    }

    /// A client configured for this gateway (not connected yet).
    func client(
        _ uid: String,
        rooms: [String: TokenRole] = [:],
        groups: [String] = [],
        secure: Bool = false,
        compression: Bool = true,
        authentication: RollcallAuthentication = .queryParameter
    ) throws -> Rollcall {
        let endpoint: RollcallEndpoint
        var options = RollcallConnectionOptions(offersCompression: compression, connectTimeout: 5)
        if secure {
            guard let tlsAddress = self.tlsAddress, let certificatePath = self.certificatePath else {
                throw LiveGatewayError(description: "no TLS listener")
            }
            endpoint = try RollcallEndpoint(url: "wss://127.0.0.1:\(tlsAddress.port)/v1/ws")
            options.tlsContext = try TLSContext.makeClient(verifyPeer: true, trustedCertificatePath: certificatePath)
        } else {
            endpoint = try RollcallEndpoint(url: "ws://127.0.0.1:\(self.address.port)/v1/ws")
        }
        let configuration = RollcallClientConfiguration(
            endpoint: endpoint,
            token: try self.token(uid, rooms: rooms, groups: groups),
            authentication: authentication,
            device: "\(uid)-device",
            connection: options,
            reconnect: RollcallReconnectPolicy(maximumAttempts: 5, initialDelay: 0.05, maximumDelay: 0.5),
            requestTimeout: 5
        )
        return Rollcall(configuration: configuration)
    }
}

/// Polls `condition` every 20 ms until it holds or `timeout` seconds pass.
func eventually(timeout: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }
    return condition()
}

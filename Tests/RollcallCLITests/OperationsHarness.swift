import EventIO
import Foundation
import JSONCoding
import RollcallServer
import Rooms
import Storage
import TokenAuth
import WebSocketServer

@testable import RollcallCLI

/// A gateway with its operator routes on a loopback port, for one test.
final class OperationsHarness {
    static let secret = "ops-test-secret-0123456789"
    static let tokenSecret = "harness-token-key-0123456789abcdef"

    let runtime: GatewayRuntime
    let operations: GatewayOperations
    let server: Server
    let address: SocketAddress
    private var stopped = false

    init(
        apiKeys: [APIKey] = [APIKey(name: "ops", secret: OperationsHarness.secret)],
        threads: Int = 1,
        store: SQLiteRoomStore? = nil,
        extraRoutes: [HTTPRoute] = [],
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        var rooms = RoomsConfiguration()
        rooms.patchWindowMilliseconds = 0
        let verifier = try TokenVerifier(keys: [try TokenKey(keyID: "t", secret: Self.tokenSecret)])
        self.runtime = try GatewayRuntime(
            configuration: rooms, verifier: verifier, path: "/v1/ws", store: store, threads: threads)
        self.operations = GatewayOperations(runtime: self.runtime, apiKeys: apiKeys)
        var configuration = ServerConfiguration()
        configuration.listen = [SocketAddress(parsing: "127.0.0.1:0")!]
        configuration.eventLoopCount = 1
        configuration.shutdownGracePeriodMilliseconds = 300
        configure(&configuration)
        self.server = Server(
            configuration: configuration, routes: [self.runtime.route],
            httpRoutes: self.operations.routes + extraRoutes)
        self.operations.attach(self.server)
        self.runtime.start()
        try self.server.start()
        self.address = self.server.localAddresses[0]
    }

    deinit {
        self.stop()
    }

    func stop() {
        guard !self.stopped else { return }
        self.stopped = true
        self.server.shutDownGracefully()
        self.runtime.stop()
    }

    /// One HTTP request through the CLI's client; `key` nil sends no Authorization header.
    func http(
        _ method: String,
        _ path: String,
        key: String? = OperationsHarness.secret,
        body: String? = nil
    ) throws -> BlockingHTTPClient.Response {
        let client = try BlockingHTTPClient(url: "http://\(self.address)")
        return try client.send(
            method, path, headers: key.map { [("Authorization", "Bearer \($0)")] } ?? [],
            body: body.map { Array($0.utf8) })
    }

    /// The JSON body of a response.
    func json(_ response: BlockingHTTPClient.Response) throws -> JSONObject {
        guard case .object(let object) = try JSONParser.parse(response.body) else { throw ConfigError("not an object") }
        return object
    }

    /// Samples of `/metrics` by name with labels, e.g. `rollcall_connections_total{transport="ws"}`.
    func metrics() throws -> [String: Double] {
        let response = try self.http("GET", "/metrics", key: nil)
        var samples: [String: Double] = [:]
        for line in response.bodyText.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    /// A token for `uid` with `role` in `room`.
    func token(_ uid: String, room: String, role: TokenRole = .participant) throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        let claims = TokenClaims(
            subject: uid, expiresAt: now + 600, name: uid.capitalized, rooms: [room: role],
            issuedAt: now)
        return try TokenSigner(key: try TokenKey(keyID: "t", secret: Self.tokenSecret)).sign(claims)
    }

    /// A WebSocket client authenticated as `uid` that joined `room` (its snapshot read).
    func participant(_ uid: String, room: String, role: TokenRole = .participant) throws -> TestWebSocket {
        let socket = try TestWebSocket(
            address: self.address, path: "/v1/ws?token=\(try self.token(uid, room: room, role: role))")
        _ = try socket.next(type: "welcome")
        try socket.send(
            .object(JSONObject(uniqueKeysWithValues: [("type", .string("join")), ("room", .string(room))])))
        _ = try socket.next(type: "snapshot")
        return socket
    }
}

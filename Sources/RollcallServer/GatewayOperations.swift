import HTTPCore
import JSONCoding
import RollcallAPIDescription
import Rooms
import Synchronization
import WebSocketServer

/// The operator's HTTP endpoints on the gateway's port: `/healthz`, `/readyz`, `/metrics`, and the server API under
/// `/v1/api/` (only with at least one API key).
///
/// Handlers run on the connection's loop and never block it: whatever needs the gateway is handed to the gateway
/// thread (`GatewayRuntime.perform`), which completes the request's responder.
public final class GatewayOperations: Sendable {
    private let runtime: GatewayRuntime
    private let apiKeys: [APIKey]
    private let draining = Atomic<Bool>(false)
    private let server = Mutex<ServerStatistics?>(nil)

    /// The gateway, for the requests that read every rooms thread.
    var runtimeForRoomThreads: GatewayRuntime { self.runtime }

    /// The API's path prefix.
    public static let apiPath = "/v1/api"

    /// - Parameters:
    ///   - runtime: the gateway.
    ///   - apiKeys: keys of the server API; none turns the API off (its paths answer 404).
    public init(runtime: GatewayRuntime, apiKeys: [APIKey]) {
        self.runtime = runtime
        self.apiKeys = apiKeys
    }

    /// Connects the transport counters of the server the routes run on (call before the server starts).
    public func attach(_ server: Server) {
        self.server.withLock { $0 = server.statistics }
    }

    /// From now on `/readyz` answers 503: the process is shutting down and should get no new clients.
    public func beginDraining() {
        self.draining.store(true, ordering: .relaxed)
    }

    /// Whether `beginDraining` was called.
    public var isDraining: Bool { self.draining.load(ordering: .relaxed) }

    /// The routes to give the server.
    public var routes: [HTTPRoute] {
        var routes = [
            HTTPRoute(path: "/healthz") { _ in
                HTTPResponse.encode(status: .ok, body: Array("ok\n".utf8))
            },
            HTTPRoute(path: "/readyz") { [self] _ in
                if self.isDraining {
                    return HTTPResponse.encode(status: .serviceUnavailable, body: Array("draining\n".utf8))
                }
                guard self.runtime.isStoreCommitting else {
                    return HTTPResponse.encode(status: .serviceUnavailable, body: Array("store cannot commit\n".utf8))
                }
                if let reason = self.runtime.sharedLogHealth?.notReadyReason {
                    return HTTPResponse.encode(status: .serviceUnavailable, body: Array((reason + "\n").utf8))
                }
                return HTTPResponse.encode(status: .ok, body: Array("ready\n".utf8))
            },
            HTTPRoute(path: "/metrics") { [self] _, responder in self.serveMetrics(responder) },
        ]
        if !self.apiKeys.isEmpty {
            routes.append(
                HTTPRoute(path: Self.apiPath, methods: APIRoute.routedMethods, matchesSubpaths: true) {
                    [self] request, responder in
                    self.serveAPI(request, responder)
                }
            )
        }
        return routes
    }

    // MARK: Metrics

    private func serveMetrics(_ responder: HTTPResponder) {
        let statistics = self.server.withLock { $0 }
        let latency = self.runtime.deliveryLatency.snapshot
        let runtime = self.runtime
        runtime.performOnEveryRoomThread({ gateway in RoomThreadCounters(of: gateway, in: runtime) }) { roomThreads in
            let text = MetricsReport(
                server: statistics, roomThreads: roomThreads, latency: latency,
                // With a shared log there is one rooms thread, and this runs on its thread; with a store each
                // rooms thread read its connection's counters on its own thread.
                cluster: runtime.sharedLog.map { ($0.statistics, $0.isAvailable) },
                storage: roomThreads.compactMap(\.storage).reduce(nil) { $0?.combined(with: $1) ?? $1 },
                webhooks: runtime.webhooks?.statistics ?? []
            ).render()
            responder.respond(status: .ok, body: Array(text.utf8), contentType: PrometheusText.contentType)
        }
    }

    // MARK: Server API

    private func serveAPI(_ request: HTTPRequest, _ responder: HTTPResponder) {
        let logger = self.runtime.logger
        guard let key = self.authenticate(request) else {
            logger.log(
                .warn, "api authentication failed",
                [
                    ("remote", request.remoteAddress?.description ?? ""), ("path", request.path),
                ])
            Self.respond(
                responder, GatewayError(.unauthorized, "a valid API key is required"),
                headers: [("WWW-Authenticate", "Bearer")])
            return
        }
        let components = request.path.dropFirst(Self.apiPath.count).split(
            separator: "/", omittingEmptySubsequences: false
        )
        .dropFirst().map { PercentEncoding.decode($0, plus: .literal) ?? String($0) }
        if components == ["openapi.json"] {
            self.serveDescription(request, responder)
            return
        }
        let route: APIRoute
        switch APIRoute.parse(method: request.method, components: Array(components)) {
        case .success(let found):
            route = found
        case .failure(let error, let allow):
            Self.respond(responder, error, headers: allow.map { [("Allow", $0)] } ?? [])
            return
        }
        var body: JSONValue = .object(JSONObject())
        if !request.body.isEmpty {
            do {
                body = try JSONParser.parse(request.body)
            } catch {
                Self.respond(responder, GatewayError(.badRequest, "malformed JSON: \(error)"))
                return
            }
        } else if route.needsBody {
            Self.respond(responder, GatewayError(.badRequest, "a JSON body is required"))
            return
        }
        if request.method == "POST" {
            logger.log(.debug, "api request", [("key", key.name), ("method", request.method), ("path", request.path)])
        }
        let parsedBody = body
        let query = APIQuery(request.query)
        let runtime = self.runtime
        if runtime.threads > 1, self.serveAcrossRoomThreads(route, query: query, responder) { return }
        let work: @Sendable (RoomsNode) -> Void = { gateway in
            do throws(GatewayError) {
                try gateway.refuseWhileTheStoreCannotCommit()
                try route.run(on: gateway, body: parsedBody, query: query, key: key) { result in
                    // An answer that acknowledges a change leaves once the change is committed to the store.
                    runtime.whenCommitted(by: gateway) {
                        Self.answer(route, result, responder, key: key, logger: logger)
                    }
                }
            } catch {
                Self.respond(responder, error)
            }
        }
        if let room = route.room ?? query.string("room") {
            runtime.perform(owning: room, work)
        } else {
            runtime.perform(work)
        }
    }

    /// The API's OpenAPI description, `api/openapi.json` as built in.
    private func serveDescription(_ request: HTTPRequest, _ responder: HTTPResponder) {
        guard request.method == "GET" || request.method == "HEAD" else {
            Self.respond(
                responder, GatewayError(.methodNotAllowed, "use GET here"), headers: [("Allow", "GET, HEAD")])
            return
        }
        responder.respond(status: .ok, body: APIDescription.json, contentType: "application/json")
    }

    static func answer(
        _ route: APIRoute, _ result: Result<JSONValue, GatewayError>, _ responder: HTTPResponder, key: APIKey,
        logger: GatewayLogger
    ) {
        switch result {
        case .success(let value):
            if case .disconnect(let uid) = route {
                logger.log(.info, "api disconnect", [("uid", uid), ("actor", key.actor)])
            }
            responder.respond(
                status: .ok, body: JSONWriter.bytes(value) + [0x0A],
                contentType: "application/json")
        case .failure(let error):
            Self.respond(responder, error)
        }
    }

    private func authenticate(_ request: HTTPRequest) -> APIKey? {
        guard let header = request.head.value(of: "Authorization") else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return APIKey.match(String(parts[1]).trimmingSpaces(), in: self.apiKeys)
    }

    /// Answers with `{"code": ..., "message": ...}` and the HTTP status of the error's code (`GatewayErrorCode`).
    static func respond(_ responder: HTTPResponder, _ error: GatewayError, headers: [(String, String)] = []) {
        let body = JSONWriter.bytes(
            .object(
                JSONObject(uniqueKeysWithValues: [
                    ("code", .string(error.code.rawValue)), ("message", .string(error.message)),
                ])))
        responder.respond(
            status: HTTPStatus(code: error.code.definition.httpStatus), headers: headers, body: body + [0x0A],
            contentType: "application/json")
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        String(self.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

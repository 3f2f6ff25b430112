import EventIO
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The WebSocket server: one event loop per thread, each with its own listening sockets on the shared ports
/// (SO_REUSEPORT lets the kernel spread new connections over the loops), so a connection stays on the loop that
/// accepted it and the per-message path takes no lock.
public final class Server: Sendable {
    /// The configuration the server runs with.
    public let configuration: ServerConfiguration
    /// Transport counters.
    public let statistics: ServerStatistics
    /// Open connections per client address and handshakes in progress, shared by the loops.
    let admission: ConnectionAdmission
    private let state = Mutex<State>(State())

    private struct State: ~Copyable {
        var loops: [LoopBox] = []
        var threads: [ThreadBox] = []
        var boundAddresses: [SocketAddress] = []
        var boundTLSAddresses: [SocketAddress] = []
    }

    // Loop-confined objects handed between threads only at start and stop.
    private struct LoopBox: @unchecked Sendable {
        let loop: EventLoop
        let serverLoop: ServerLoop
    }

    private struct ThreadBox: @unchecked Sendable {
        let thread: EventLoopThread
    }

    private let routes: UncheckedBox<[WebSocketRoute]>
    private let httpRoutes: UncheckedBox<[HTTPRoute]>

    /// - Parameters:
    ///   - configuration: listeners, limits, TLS and timeouts.
    ///   - routes: WebSocket endpoints by path (the echo endpoint is added when the configuration enables it).
    ///   - httpRoutes: plain HTTP endpoints on the same ports.
    public init(configuration: ServerConfiguration, routes: [WebSocketRoute] = [], httpRoutes: [HTTPRoute] = []) {
        self.configuration = configuration
        self.statistics = ServerStatistics(loopCount: configuration.effectiveEventLoopCount)
        self.admission = ConnectionAdmission(
            maximumConnectionsPerAddress: configuration.maximumConnectionsPerAddress,
            maximumPendingHandshakes: configuration.maximumPendingHandshakes
        )
        var routes = routes
        if configuration.echoEnabled {
            routes.append(WebSocketRoute(path: configuration.echoPath) { _ in EchoEndpoint() })
        }
        self.routes = UncheckedBox(routes)
        self.httpRoutes = UncheckedBox(httpRoutes)
    }

    /// The addresses the plain listeners are bound to (with the real port when 0 was asked for).
    public var localAddresses: [SocketAddress] { self.state.withLock { $0.boundAddresses } }
    /// The addresses the TLS listeners are bound to.
    public var localTLSAddresses: [SocketAddress] { self.state.withLock { $0.boundTLSAddresses } }

    /// Binds every listener and starts the loops' threads.
    ///
    /// - Throws: `ServerStartError` when a listener cannot be bound or the TLS files cannot be loaded.
    public func start() throws(ServerStartError) {
        let configuration = self.configuration
        var tlsContext: TLSContext?
        if !configuration.tlsListen.isEmpty {
            guard let certificate = configuration.tlsCertificatePath, let key = configuration.tlsPrivateKeyPath else {
                throw ServerStartError("tls_listen is set but tls_certificate or tls_private_key is missing")
            }
            do {
                tlsContext = try TLSContext.makeServer(certificateChainPath: certificate, privateKeyPath: key)
            } catch {
                throw ServerStartError("cannot load the TLS certificate and key: \(error)")
            }
        }
        let loopCount = configuration.effectiveEventLoopCount
        // Each loop gets its own socket per address; the first bind fixes the port when 0 was asked for.
        var plainAddresses = configuration.listen
        var secureAddresses = configuration.tlsListen
        var plainSockets = [[Int32]](repeating: [], count: loopCount)
        var secureSockets = [[Int32]](repeating: [], count: loopCount)
        do {
            for loopIndex in 0..<loopCount {
                for (index, address) in plainAddresses.enumerated() {
                    let fd = try Socket.listen(on: address, reusePort: true)
                    plainSockets[loopIndex].append(fd)
                    if address.port == 0 { plainAddresses[index] = try Socket.localAddress(of: fd) }
                }
                for (index, address) in secureAddresses.enumerated() {
                    let fd = try Socket.listen(on: address, reusePort: true)
                    secureSockets[loopIndex].append(fd)
                    if address.port == 0 { secureAddresses[index] = try Socket.localAddress(of: fd) }
                }
            }
        } catch {
            for fd in (plainSockets + secureSockets).joined() { Socket.close(fd) }
            throw ServerStartError("cannot listen: \(error)")
        }

        var boxes: [LoopBox] = []
        do {
            for loopIndex in 0..<loopCount {
                let loop = try EventLoop(index: loopIndex, statistics: self.statistics.loops[loopIndex].eventLoop)
                let serverLoop = ServerLoop(
                    loop: loop,
                    configuration: configuration,
                    tlsContext: tlsContext,
                    routes: self.routes.value,
                    httpRoutes: self.httpRoutes.value,
                    statistics: self.statistics,
                    admission: self.admission
                )
                try serverLoop.startListening(plain: plainSockets[loopIndex], secure: secureSockets[loopIndex])
                boxes.append(LoopBox(loop: loop, serverLoop: serverLoop))
            }
        } catch {
            for fd in (plainSockets + secureSockets).joined() { Socket.close(fd) }
            throw ServerStartError("cannot start the event loops: \(error)")
        }
        let threads = boxes.map { box in
            ThreadBox(thread: EventLoopThread(name: "rollcall-io-\(box.loop.index)") { box.loop.run() })
        }
        self.state.withLock { state in
            state.loops = boxes
            state.threads = threads
            state.boundAddresses = plainAddresses
            state.boundTLSAddresses = secureAddresses
        }
    }

    /// Stops accepting, sends Close 1001 to every client, waits for the close handshakes up to the configured grace
    /// period, then stops the loops and returns when their threads have ended.
    public func shutDownGracefully() {
        let (loops, threads) = self.state.withLock { ($0.loops, $0.threads) }
        for box in loops {
            box.loop.execute {
                box.serverLoop.shutDown { box.loop.stop() }
            }
        }
        for box in threads { box.thread.join() }
        self.state.withLock { state in
            state.loops = []
            state.threads = []
        }
    }

    /// Open connections over all loops.
    public var openConnectionCount: Int { self.statistics.openConnections.load(ordering: .relaxed) }

    /// Connections still in their TLS or HTTP handshake, over all loops.
    public var pendingHandshakeCount: Int { self.admission.pendingHandshakes }
}

/// Why the server could not start.
public struct ServerStartError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Holds a value that is only read after being set at init.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

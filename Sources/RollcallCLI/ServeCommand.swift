import EventIO
import Foundation
import RollcallServer
import Storage
import TokenAuth
import WebSocketServer
import Webhooks

#if canImport(Glibc)
import Glibc
#endif

/// `rollcall serve`: start the gateway and run until SIGTERM or SIGINT, then shut down gracefully.
enum ServeCommand {
    static func run(_ arguments: [String]) -> Int32 {
        let whole: RollcallConfiguration
        let verifier: TokenVerifier
        let apiKeys: [APIKey]
        let warnings: [String]
        do {
            let options = try CommandRunner.ConfigurationOptions(arguments)
            if options.wantsHelp {
                print("USAGE: rollcall serve [OPTIONS]\n\n" + CommandRunner.configurationOptions)
                print(ConfigurationLoader.reference)
                return 0
            }
            let loaded = try options.load()
            whole = loaded.0
            warnings = loaded.1.warnings
            try whole.refuseDevelopmentKeyBeyondLoopback()
            verifier = try TokenKeys.verifier(whole.auth)
            apiKeys = try whole.api.parsedKeys()
        } catch {
            return CommandRunner.fail(error.description)
        }
        let configuration = whole.server
        Log.minimumLevel = whole.log.level
        for warning in warnings { Log.warning(warning, []) }

        // Signals are taken synchronously by this thread; the loop threads inherit the blocked mask.
        signal(SIGPIPE, SIG_IGN)
        // A file size limit (`ulimit -f`) then fails a store write like a full disk, which the store answers
        // (docs/OPERATIONS.md, "Storage"), instead of killing the process.
        signal(SIGXFSZ, SIG_IGN)
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        System.raiseOpenFileLimit()

        // The store is opened, checked and proven writable before anything listens: a damaged, foreign, newer or
        // unwritable file stops the start with its reason, never an empty gateway.
        var store: SQLiteRoomStore?
        var webhooks: WebhookDispatcher?
        var storeFields: [(String, String)] = []
        do {
            if let storage = try whole.storageConfiguration() {
                let opened = try SQLiteRoomStore(configuration: storage)
                store = opened
                storeFields = [("path", storage.path), ("sync", storage.sync.rawValue)]
                if let hooks = try whole.webhookConfiguration() {
                    webhooks = try WebhookDispatcher(
                        configuration: hooks, storePath: storage.path,
                        committedPosition: { [position = opened.committedPosition] in position.current },
                        log: { message, fields in Log.gatewayLogger.log(.warn, message, fields) })
                    storeFields.append(
                        ("webhooks", hooks.endpoints.map { "\($0.name)=\($0.url)" }.joined(separator: " ")))
                }
            } else if let cluster = try whole.clusterConfiguration(), let hooks = try whole.webhookConfiguration() {
                webhooks = try ClusterWiring.webhooks(
                    hooks, cluster: cluster, speakerRule: whole.rooms.speakerRule)
                storeFields = [("webhooks", hooks.endpoints.map { "\($0.name)=\($0.url)" }.joined(separator: " "))]
            }
        } catch let error as ConfigError {
            return CommandRunner.fail(error.description)
        } catch {
            return CommandRunner.fail("cannot open the store: \(error)")
        }

        let runtime: GatewayRuntime
        do {
            runtime = try GatewayRuntime(
                configuration: whole.rooms,
                verifier: verifier,
                path: whole.gatewayPath,
                logger: Log.gatewayLogger,
                sharedLog: ClusterWiring.sharedLog(
                    try whole.clusterConfiguration(), rooms: whole.rooms, logger: Log.gatewayLogger),
                store: store,
                checkpointInterval: whole.storage.checkpointInterval,
                webhooks: webhooks,
                threads: whole.roomThreads
            )
        } catch {
            return CommandRunner.fail("cannot start the rooms layer: \(error)")
        }
        let operations = GatewayOperations(runtime: runtime, apiKeys: apiKeys)
        var httpRoutes = operations.routes
        httpRoutes.append(WebClientRoutes.client)
        if whole.dashboardEnabled {
            httpRoutes.append(WebClientRoutes.dashboard(roomsPath: whole.gatewayPath))
        }
        let server = Server(configuration: configuration, routes: [runtime.route], httpRoutes: httpRoutes)
        operations.attach(server)
        runtime.start()
        do {
            try server.start()
        } catch {
            runtime.stop()
            return CommandRunner.fail(error.description)
        }
        let plain = server.localAddresses.map { "ws://\($0)" }
        let secure = server.localTLSAddresses.map { "wss://\($0)" }
        // Always written, whatever log.level: scripts and tests wait for this line.
        Log.write(
            "info",
            "listening",
            [
                ("addresses", (plain + secure).joined(separator: " ")),
                ("loops", String(configuration.effectiveEventLoopCount)),
                ("rooms", whole.gatewayPath),
                ("echo", configuration.echoEnabled ? configuration.echoPath : "off"),
            ]
        )
        Log.info(
            "server api",
            [("state", apiKeys.isEmpty ? "off" : "on"), ("keys", apiKeys.map(\.name).joined(separator: ","))])
        if store != nil { Log.info("store", storeFields) } else if webhooks != nil { Log.info("webhooks", storeFields) }
        if let key = whole.auth.developmentKeyInUse {
            let kid = key.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
            Log.warning(
                "auth.keys holds the development key from config/rollcall.conf; set your own secret in production",
                [("kid", kid)]
            )
        }
        var received: Int32 = 0
        sigwait(&signals, &received)
        Log.info("shutting down", [("signal", received == SIGTERM ? "SIGTERM" : "SIGINT")])
        operations.beginDraining()
        if whole.drainDelayMilliseconds > 0 {
            // /readyz answers 503 meanwhile, so load balancers stop sending new clients before the listeners close.
            usleep(useconds_t(whole.drainDelayMilliseconds) * 1000)
        }
        server.shutDownGracefully()
        runtime.stop()
        Log.info("stopped", [])
        return 0
    }
}

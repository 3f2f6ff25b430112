#if canImport(Glibc)
import Glibc
#endif
import Foundation
import EventIO
import GatewayWebSocket
import TokenAuth
import WebSocketCore
import WebSocketServer

/// `rollcall serve`: start the gateway and run until SIGTERM or SIGINT, then shut down gracefully.
enum ServeCommand {
    static func run(_ arguments: [String]) -> Int32 {
        let whole: RollcallConfiguration
        let verifier: TokenVerifier
        do {
            let options = try CommandRunner.ConfigurationOptions(arguments)
            if options.wantsHelp {
                print("USAGE: rollcall serve [OPTIONS]\n\n" + CommandRunner.configurationOptions)
                print(ConfigurationLoader.reference)
                return 0
            }
            whole = try options.load().0
            verifier = try TokenKeys.verifier(whole.auth)
        } catch {
            return CommandRunner.fail(error.description)
        }
        let configuration = whole.server

        // Signals are taken synchronously by this thread; the loop threads inherit the blocked mask.
        signal(SIGPIPE, SIG_IGN)
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        System.raiseOpenFileLimit()

        let runtime: GatewayRuntime
        do {
            runtime = try GatewayRuntime(configuration: whole.rooms, verifier: verifier, path: whole.gatewayPath)
        } catch {
            return CommandRunner.fail("cannot start the rooms layer: \(error)")
        }
        var httpRoutes: [HTTPRoute] = []
        if whole.dashboardEnabled {
            httpRoutes.append(
                HTTPRoute(path: "/dashboard") { _ in
                    HTTPResponse.encode(
                        status: .ok,
                        headers: [("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")],
                        body: Array(DashboardPage.html.utf8),
                        contentType: "text/html; charset=utf-8"
                    )
                }
            )
        }
        let server = Server(configuration: configuration, routes: [runtime.route], httpRoutes: httpRoutes)
        runtime.start()
        do {
            try server.start()
        } catch {
            runtime.stop()
            return CommandRunner.fail(error.description)
        }
        let plain = server.localAddresses.map { "ws://\($0)" }
        let secure = server.localTLSAddresses.map { "wss://\($0)" }
        Log.info(
            "listening",
            [
                ("addresses", (plain + secure).joined(separator: " ")),
                ("loops", String(configuration.effectiveEventLoopCount)),
                ("rooms", whole.gatewayPath),
                ("echo", configuration.echoEnabled ? configuration.echoPath : "off"),
            ]
        )
        if whole.auth.keys.contains(AuthSettings.developmentKey) {
            Log.warning(
                "auth.keys holds the development key from config/rollcall.conf; set your own secret in production",
                []
            )
        }
        var received: Int32 = 0
        sigwait(&signals, &received)
        Log.info("shutting down", [("signal", received == SIGTERM ? "SIGTERM" : "SIGINT")])
        server.shutDownGracefully()
        runtime.stop()
        Log.info("stopped", [])
        return 0
    }
}

/// Structured log lines in logfmt on standard error.
enum Log {
    static func info(_ message: String, _ fields: [(String, String)]) {
        Self.write("info", message, fields)
    }

    static func warning(_ message: String, _ fields: [(String, String)]) {
        Self.write("warn", message, fields)
    }

    private static func write(_ level: String, _ message: String, _ fields: [(String, String)]) {
        var line = "level=\(level) msg=\(quote(message))"
        for (key, value) in fields { line += " \(key)=\(quote(value))" }
        line += "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    private static func quote(_ value: String) -> String {
        value.contains(" ") || value.contains("=") || value.isEmpty
            ? "\"" + value.replacingOccurrences(of: "\"", with: "\\\"") + "\"" : value
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import EventIO
import WebSocketServer

/// `rollcall serve`: start the gateway and run until SIGTERM or SIGINT, then shut down gracefully.
enum ServeCommand {
    static func run(_ arguments: [String]) -> Int32 {
        let configuration: ServerConfiguration
        do {
            let options = try CommandRunner.ConfigurationOptions(arguments)
            if options.wantsHelp {
                print("USAGE: rollcall serve [OPTIONS]\n\n" + CommandRunner.configurationOptions)
                print(ConfigurationLoader.reference)
                return 0
            }
            configuration = try options.load().0
        } catch {
            return CommandRunner.fail(error.description)
        }

        // Signals are taken synchronously by this thread; the loop threads inherit the blocked mask.
        signal(SIGPIPE, SIG_IGN)
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        System.raiseOpenFileLimit()

        let server = Server(configuration: configuration)
        do {
            try server.start()
        } catch {
            return CommandRunner.fail(error.description)
        }
        let plain = server.localAddresses.map { "ws://\($0)" }
        let secure = server.localTLSAddresses.map { "wss://\($0)" }
        Log.info(
            "listening",
            [
                ("addresses", (plain + secure).joined(separator: " ")),
                ("loops", String(configuration.effectiveEventLoopCount)),
                ("echo", configuration.echoEnabled ? configuration.echoPath : "off"),
            ]
        )
        var received: Int32 = 0
        sigwait(&signals, &received)
        Log.info("shutting down", [("signal", received == SIGTERM ? "SIGTERM" : "SIGINT")])
        server.shutDownGracefully()
        Log.info("stopped", [])
        return 0
    }
}

/// Structured log lines in logfmt on standard error.
enum Log {
    static func info(_ message: String, _ fields: [(String, String)]) {
        var line = "level=info msg=\(quote(message))"
        for (key, value) in fields { line += " \(key)=\(quote(value))" }
        line += "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    private static func quote(_ value: String) -> String {
        value.contains(" ") || value.contains("=") || value.isEmpty
            ? "\"" + value.replacingOccurrences(of: "\"", with: "\\\"") + "\"" : value
    }
}

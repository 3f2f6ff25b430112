import Foundation
import RollcallServer
import Synchronization

/// Structured log lines in logfmt on standard error, filtered by `log.level`.
enum Log {
    private static let level = Atomic<Int>(GatewayLogger.Level.info.rawValue)

    /// The least severe level written (set once at start from `log.level`).
    static var minimumLevel: GatewayLogger.Level {
        get { GatewayLogger.Level(rawValue: Self.level.load(ordering: .relaxed)) ?? .info }
        set { Self.level.store(newValue.rawValue, ordering: .relaxed) }
    }

    /// A logger for the gateway and its endpoints that writes through `Log`.
    static var gatewayLogger: GatewayLogger {
        GatewayLogger(minimumLevel: Self.minimumLevel) { level, message, fields in
            Self.log(level, message, fields)
        }
    }

    static func debug(_ message: String, _ fields: [(String, String)]) {
        Self.log(.debug, message, fields)
    }

    static func info(_ message: String, _ fields: [(String, String)]) {
        Self.log(.info, message, fields)
    }

    static func warning(_ message: String, _ fields: [(String, String)]) {
        Self.log(.warn, message, fields)
    }

    static func error(_ message: String, _ fields: [(String, String)]) {
        Self.log(.error, message, fields)
    }

    static func log(_ level: GatewayLogger.Level, _ message: String, _ fields: [(String, String)]) {
        guard level >= Self.minimumLevel else { return }
        Self.write(level.name, message, fields)
    }

    /// Writes a line whatever the level.
    static func write(_ level: String, _ message: String, _ fields: [(String, String)]) {
        FileHandle.standardError.write(Data(Self.line(level, message, fields).utf8))
    }

    /// One logfmt line: `level=... msg=... key=value ...`, values with spaces, `=` or quotes quoted.
    static func line(_ level: String, _ message: String, _ fields: [(String, String)]) -> String {
        var line = "level=\(level) msg=\(quote(message))"
        for (key, value) in fields { line += " \(key)=\(quote(value))" }
        return line + "\n"
    }

    private static func quote(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "=" || $0 == "\"" || $0.isNewline }) else {
            return value
        }
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return "\"" + escaped + "\""
    }
}

/// Where the gateway's log lines go, with the least severe level that is written.
///
/// The sink is called from the loop threads and the gateway thread; it must be safe to call from any thread.
public struct GatewayLogger: Sendable {
    /// Severity of a line, least severe first.
    public enum Level: Int, Comparable, Sendable, CaseIterable {
        case debug
        case info
        case warn
        case error

        /// The level's name as written in logs and configured with `log.level`.
        public var name: String {
            switch self {
            case .debug: return "debug"
            case .info: return "info"
            case .warn: return "warn"
            case .error: return "error"
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Writes one line: the level, a message and key-value fields.
    public typealias Sink = @Sendable (_ level: Level, _ message: String, _ fields: [(String, String)]) -> Void

    /// Lines below this level are dropped before they are formatted.
    public let minimumLevel: Level
    private let sink: Sink?

    /// A logger that writes nothing.
    public init() {
        self.minimumLevel = .error
        self.sink = nil
    }

    /// - Parameters:
    ///   - minimumLevel: the least severe level written.
    ///   - sink: writes a line.
    public init(minimumLevel: Level, sink: @escaping Sink) {
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    /// Whether lines at `level` are written (check before building costly fields).
    public func isEnabled(_ level: Level) -> Bool {
        self.sink != nil && level >= self.minimumLevel
    }

    /// Writes a line when its level is enabled.
    public func log(_ level: Level, _ message: String, _ fields: [(String, String)]) {
        guard level >= self.minimumLevel, let sink = self.sink else { return }
        sink(level, message, fields)
    }
}

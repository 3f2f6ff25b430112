/// Writes the Prometheus text exposition format (version 0.0.4): one `# HELP` and `# TYPE` line per metric family,
/// then its samples.
public struct PrometheusText {
    /// The `Content-Type` of the format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The text so far.
    public private(set) var text = ""

    public init() {}

    /// Starts a metric family.
    ///
    /// - Parameters:
    ///   - name: the family name (counters end in `_total`).
    ///   - type: `counter`, `gauge` or `histogram`.
    ///   - help: what it measures.
    public mutating func family(_ name: String, _ type: String, _ help: String) {
        self.text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(type)\n"
    }

    /// Adds a sample.
    ///
    /// - Parameters:
    ///   - name: the sample name (the family's, or with `_bucket`, `_sum`, `_count` for histograms).
    ///   - labels: label names and values.
    ///   - value: the value.
    public mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
        self.text += name
        if !labels.isEmpty {
            self.text += "{" + labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
        }
        self.text += " " + Self.format(value) + "\n"
    }

    /// Adds an integer sample.
    public mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Int) {
        self.sample(name, labels, Double(value))
    }

    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    private static func escapeHelp(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("\n", with: "\\n")
    }

    private static func escapeLabel(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"").replacing("\n", with: "\\n")
    }
}

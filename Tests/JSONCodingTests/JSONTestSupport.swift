import JSONCoding

/// Limits large enough for any test document that is not about limits.
let generousLimits = JSONParser.Limits(
    maxInputBytes: 1 << 26,
    maxDepth: 100_000,
    maxStringBytes: 1 << 24,
    maxElementsPerContainer: 1 << 20,
    maxTotalNodes: 1 << 22
)

/// The value `bytes` parse to, or nil if they are rejected.
func parsed(_ bytes: [UInt8], limits: JSONParser.Limits = JSONParser.Limits()) -> JSONValue? {
    try? JSONParser.parse(bytes, limits: limits)
}

/// The value `text` parses to, or nil if it is rejected.
func parsed(_ text: String, limits: JSONParser.Limits = JSONParser.Limits()) -> JSONValue? {
    try? JSONParser.parse(text, limits: limits)
}

/// The error `bytes` are rejected with, or nil if they parse.
func parseError(_ bytes: [UInt8], limits: JSONParser.Limits = JSONParser.Limits()) -> JSONError? {
    do {
        _ = try JSONParser.parse(bytes, limits: limits)
        return nil
    } catch {
        return error
    }
}

/// The error `text` is rejected with, or nil if it parses.
func parseError(_ text: String, limits: JSONParser.Limits = JSONParser.Limits()) -> JSONError? {
    parseError(Array(text.utf8), limits: limits)
}

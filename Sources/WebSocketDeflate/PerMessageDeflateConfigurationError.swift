/// A `PerMessageDeflateConfiguration` field holds a value outside its allowed range.
public struct PerMessageDeflateConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case outOfRange(field: String, value: Int, allowed: String)
    }

    private let kind: Kind

    private init(kind: Kind) {
        self.kind = kind
    }

    /// A field whose value is outside its allowed range.
    ///
    /// - Parameters:
    ///   - field: the name of the configuration field.
    ///   - value: the rejected value.
    ///   - allowed: the allowed values, for the message (for example `9...15`).
    static func outOfRange(field: String, value: Int, allowed: String) -> PerMessageDeflateConfigurationError {
        PerMessageDeflateConfigurationError(kind: .outOfRange(field: field, value: value, allowed: allowed))
    }

    /// The name of the offending configuration field.
    public var field: String {
        switch self.kind {
        case .outOfRange(let field, _, _): return field
        }
    }

    public var description: String {
        switch self.kind {
        case .outOfRange(let field, let value, let allowed):
            return "permessage-deflate \(field) must be in \(allowed), got \(value)"
        }
    }
}

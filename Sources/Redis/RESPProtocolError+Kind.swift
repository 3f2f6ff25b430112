extension RESPProtocolError {
    /// The category of a `RESPProtocolError`; compare with the static members, for example `error.kind == .tooDeep`.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        enum Base: Hashable, Sendable {
            case malformed
            case tooLarge
            case tooDeep
        }

        let base: Base

        /// The bytes break the RESP grammar.
        public static let malformed = Kind(base: .malformed)
        /// A line, bulk string or aggregate is over the parser's limits.
        public static let tooLarge = Kind(base: .tooLarge)
        /// Aggregates are nested deeper than the parser's limit.
        public static let tooDeep = Kind(base: .tooDeep)

        public var description: String {
            switch self.base {
            case .malformed: return "malformed"
            case .tooLarge: return "too large"
            case .tooDeep: return "too deep"
            }
        }
    }
}

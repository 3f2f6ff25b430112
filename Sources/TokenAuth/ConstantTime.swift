/// Comparisons whose running time does not depend on where two secrets first differ.
enum ConstantTime {
    /// Whether two byte strings are equal, looking at every byte of `actual` whatever the bytes hold.
    ///
    /// The time taken depends only on the lengths, which are public (an HMAC-SHA256 tag is always 32 bytes), never on
    /// the contents: there is no early exit, every byte difference is folded into one accumulator.
    ///
    /// - Parameters:
    ///   - actual: The bytes received, for example the decoded signature of a token.
    ///   - expected: The bytes computed locally, for example the HMAC of the signing input.
    /// - Returns: True if both have the same length and the same bytes.
    @inline(never)
    static func equals(_ actual: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference: UInt8 = actual.count == expected.count ? 0 : 1
        for index in 0..<actual.count {
            let other = index < expected.count ? expected[index] : 0
            difference |= actual[index] ^ other
        }
        return difference == 0
    }
}

/// Base64url without padding (RFC 7515 §2, RFC 4648 §5), the encoding of the three parts of a compact JWS, and
/// padded standard base64 (RFC 4648 §4) for secrets taken from configuration.
///
/// Decoding is strict: characters outside the alphabet, "=" in base64url, a length that leaves a single character
/// over, and non-zero bits left over in the last character are all rejected, so every byte string has exactly one
/// accepted encoding and a token cannot be altered without changing its signature input.
enum Base64URL {
    private static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let standardAlphabet = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8
    )

    private static let invalid: UInt8 = 0xFF
    private static let pad = UInt8(ascii: "=")

    private static let urlValues = Self.values(of: Self.urlAlphabet)
    private static let standardValues = Self.values(of: Self.standardAlphabet)

    /// The 6-bit value of each byte in `alphabet`, `invalid` for every other byte.
    private static func values(of alphabet: [UInt8]) -> [UInt8] {
        var values = [UInt8](repeating: Self.invalid, count: 256)
        for (value, character) in alphabet.enumerated() {
            values[Int(character)] = UInt8(value)
        }
        return values
    }

    /// Encodes `bytes` as base64url without padding.
    ///
    /// - Parameters:
    ///   - bytes: The bytes to encode.
    /// - Returns: The encoded text, `ceil(4 * count / 3)` characters long.
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output.append(Self.urlAlphabet[Int(group >> 18)])
            output.append(Self.urlAlphabet[Int(group >> 12 & 0x3F)])
            output.append(Self.urlAlphabet[Int(group >> 6 & 0x3F)])
            output.append(Self.urlAlphabet[Int(group & 0x3F)])
            index += 3
        }
        let rest = input.count - index
        if rest > 0 {
            let first = input[index]
            let second = rest == 2 ? input[index + 1] : 0
            output.append(Self.urlAlphabet[Int(first >> 2)])
            output.append(Self.urlAlphabet[Int((first & 0x03) << 4 | second >> 4)])
            if rest == 2 {
                output.append(Self.urlAlphabet[Int((second & 0x0F) << 2)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes base64url without padding.
    ///
    /// - Parameters:
    ///   - text: The encoded text.
    /// - Returns: The decoded bytes, or nil if `text` is not the canonical unpadded base64url encoding of any bytes.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        Self.decodeUnpadded(Array(text), values: Self.urlValues)
    }

    /// Decodes standard base64 with its padding.
    ///
    /// - Parameters:
    ///   - text: The encoded text; its length must be a multiple of four, with one or two "=" at the end as needed.
    /// - Returns: The decoded bytes, or nil if `text` is not the canonical padded base64 encoding of any bytes.
    static func decodeStandard(_ text: some Collection<UInt8>) -> [UInt8]? {
        var input = Array(text)
        guard input.count % 4 == 0 else {
            return nil
        }
        var padding = 0
        while padding < 2, input.last == Self.pad {
            input.removeLast()
            padding += 1
        }
        // The padding must complete exactly the last group: two characters and "==", or three and "=".
        guard padding == 0 || input.count % 4 == 4 - padding else {
            return nil
        }
        return Self.decodeUnpadded(input, values: Self.standardValues)
    }

    private static func decodeUnpadded(_ input: [UInt8], values: [UInt8]) -> [UInt8]? {
        // A single character over carries only six bits, not a whole byte.
        guard input.count % 4 != 1 else {
            return nil
        }
        var output: [UInt8] = []
        output.reserveCapacity(input.count * 3 / 4)
        var group: UInt32 = 0
        var bits: UInt32 = 0
        for character in input {
            let value = values[Int(character)]
            guard value != Self.invalid else {
                return nil
            }
            group = group << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: group >> bits))
                group &= (1 << bits) - 1
            }
        }
        // The bits the last character carries beyond the last whole byte must be zero.
        guard group == 0 else {
            return nil
        }
        return output
    }
}

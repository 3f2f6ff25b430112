/// Base64 (RFC 4648 §4) for the handshake keys.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The 6-bit value of each byte, or `invalid` for bytes outside the alphabet (including "=").
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: invalid, count: 256)
        for (value, character) in alphabet.enumerated() {
            values[Int(character)] = UInt8(value)
        }
        return values
    }()

    private static let invalid: UInt8 = 0xFF
    private static let pad = UInt8(ascii: "=")

    /// Encodes `bytes` with padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        if let encoded = bytes.withContiguousStorageIfAvailable({ encode(contiguous: $0) }) {
            return encoded
        }
        return Array(bytes).withUnsafeBufferPointer { encode(contiguous: $0) }
    }

    /// Decodes padded base64; nil for any character outside the alphabet, bad padding or a length not a multiple of 4.
    ///
    /// Decoding is strict: "=" may only end the text (one or two of them), and the bits a padded group leaves over
    /// must be zero, so every byte string has exactly one accepted encoding.
    public static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        if let decoded = text.withContiguousStorageIfAvailable({ decode(contiguous: $0) }) {
            return decoded
        }
        return Array(text).withUnsafeBufferPointer { decode(contiguous: $0) }
    }

    private static func encode(contiguous input: UnsafeBufferPointer<UInt8>) -> String {
        let outputCount = (input.count + 2) / 3 * 4
        return Self.alphabet.withUnsafeBufferPointer { alphabet in
            String(unsafeUninitializedCapacity: outputCount) { output in
                var inIndex = 0
                var outIndex = 0
                while inIndex + 3 <= input.count {
                    let group =
                        UInt32(input[inIndex]) << 16 | UInt32(input[inIndex + 1]) << 8
                        | UInt32(input[inIndex + 2])
                    output[outIndex] = alphabet[Int(group >> 18)]
                    output[outIndex + 1] = alphabet[Int(group >> 12 & 0x3F)]
                    output[outIndex + 2] = alphabet[Int(group >> 6 & 0x3F)]
                    output[outIndex + 3] = alphabet[Int(group & 0x3F)]
                    inIndex += 3
                    outIndex += 4
                }
                let rest = input.count - inIndex
                if rest > 0 {
                    let b0 = input[inIndex]
                    let b1 = rest == 2 ? input[inIndex + 1] : 0
                    output[outIndex] = alphabet[Int(b0 >> 2)]
                    output[outIndex + 1] = alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)]
                    output[outIndex + 2] = rest == 2 ? alphabet[Int((b1 & 0x0F) << 2)] : Self.pad
                    output[outIndex + 3] = Self.pad
                    outIndex += 4
                }
                return outIndex
            }
        }
    }

    private static func decode(contiguous input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard input.count % 4 == 0 else { return nil }
        guard input.count > 0 else { return [] }
        // Padding can only sit in the last group; it decides how many bytes that group yields.
        let padding = input[input.count - 1] != Self.pad ? 0 : input[input.count - 2] != Self.pad ? 1 : 2
        let outputCount = input.count / 4 * 3 - padding
        return Self.values.withUnsafeBufferPointer { values -> [UInt8]? in
            var failed = false
            let output = [UInt8](unsafeUninitializedCapacity: outputCount) { output, initializedCount in
                let groupCount = input.count / 4
                var inIndex = 0
                var outIndex = 0
                for group in 0..<groupCount {
                    let isPadded = group == groupCount - 1 && padding > 0
                    let v0 = values[Int(input[inIndex])]
                    let v1 = values[Int(input[inIndex + 1])]
                    let v2 = isPadded && padding == 2 ? 0 : values[Int(input[inIndex + 2])]
                    let v3 = isPadded ? 0 : values[Int(input[inIndex + 3])]
                    guard (v0 | v1 | v2 | v3) & 0xC0 == 0 else {
                        failed = true
                        break
                    }
                    let bits = UInt32(v0) << 18 | UInt32(v1) << 12 | UInt32(v2) << 6 | UInt32(v3)
                    if isPadded {
                        // The bits the padding leaves over must be zero: "QR==" is not "QQ==".
                        guard bits & (padding == 2 ? 0xFFFF : 0xFF) == 0 else {
                            failed = true
                            break
                        }
                    }
                    output[outIndex] = UInt8(truncatingIfNeeded: bits >> 16)
                    if !isPadded || padding == 1 { output[outIndex + 1] = UInt8(truncatingIfNeeded: bits >> 8) }
                    if !isPadded { output[outIndex + 2] = UInt8(truncatingIfNeeded: bits) }
                    inIndex += 4
                    outIndex += isPadded ? 3 - padding : 3
                }
                initializedCount = failed ? 0 : outIndex
            }
            return failed ? nil : output
        }
    }
}

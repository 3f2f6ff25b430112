/// Base64 (RFC 4648 §4) for the handshake keys.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Encodes `bytes` with padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var output = [UInt8]()
        output.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index < input.count {
            let b0 = input[index]
            let b1 = index + 1 < input.count ? input[index + 1] : 0
            let b2 = index + 2 < input.count ? input[index + 2] : 0
            output.append(alphabet[Int(b0 >> 2)])
            output.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
            output.append(index + 1 < input.count ? alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            output.append(index + 2 < input.count ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes padded base64; nil for any character outside the alphabet, bad padding or a length not a multiple of 4.
    public static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        let input = Array(text)
        guard input.count % 4 == 0 else { return nil }
        var output = [UInt8]()
        output.reserveCapacity(input.count / 4 * 3)
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"): return 62
            case UInt8(ascii: "/"): return 63
            default: return nil
            }
        }
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            guard let v0 = value(input[index]), let v1 = value(input[index + 1]) else { return nil }
            output.append(v0 << 2 | v1 >> 4)
            if isLast && input[index + 2] == UInt8(ascii: "=") {
                guard input[index + 3] == UInt8(ascii: "="), v1 & 0x0F == 0 else { return nil }
                break
            }
            guard let v2 = value(input[index + 2]) else { return nil }
            output.append((v1 & 0x0F) << 4 | v2 >> 2)
            if isLast && input[index + 3] == UInt8(ascii: "=") {
                guard v2 & 0x03 == 0 else { return nil }
                break
            }
            guard let v3 = value(input[index + 3]) else { return nil }
            output.append((v2 & 0x03) << 6 | v3)
            index += 4
        }
        return output
    }
}

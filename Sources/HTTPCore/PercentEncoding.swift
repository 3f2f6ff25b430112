/// RFC 3986 percent-encoding for the parts of a request target: the path, where `+` is itself, and the query, whose
/// `application/x-www-form-urlencoded` pairs write a space as `+`.
public enum PercentEncoding {
    /// What `+` means in the text being decoded.
    public enum Plus: Sendable {
        /// `+` is a plus sign (a path segment, a URL's user information).
        case literal
        /// `+` is a space (a query parameter from a form or from `URLSearchParams`).
        case space
    }

    /// Decodes `%XX` escapes (and `+` as `plus` says).
    ///
    /// - Parameters:
    ///   - text: the encoded text.
    ///   - plus: what `+` means.
    /// - Returns: the decoded text, or nil when a `%` is not followed by two hex digits or the bytes are not UTF-8.
    public static func decode(_ text: String, plus: Plus) -> String? {
        Self.decode(text[...], plus: plus)
    }

    /// Decodes `%XX` escapes (and `+` as `plus` says) in a part of a larger text.
    ///
    /// - Parameters:
    ///   - text: the encoded text.
    ///   - plus: what `+` means.
    /// - Returns: the decoded text, or nil when a `%` is not followed by two hex digits or the bytes are not UTF-8.
    public static func decode(_ text: Substring, plus: Plus) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(Self.hexValue),
                    let low = iterator.next().flatMap(Self.hexValue)
                else { return nil }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plus == .space:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Encodes every byte but the RFC 3986 unreserved characters (`A-Z a-z 0-9 - . _ ~`), which is safe in a path
    /// segment and in a query value alike.
    ///
    /// - Parameter text: the text.
    public static func encode(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits: StaticString = "0123456789ABCDEF"
                result.unicodeScalars.append("%")
                result.unicodeScalars.append(Unicode.Scalar(digits.utf8Start[Int(byte >> 4)]))
                result.unicodeScalars.append(Unicode.Scalar(digits.utf8Start[Int(byte & 0xF)]))
            }
        }
        return result
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension JSONScanner {
    /// Parses the string whose opening quote is at the cursor, validating its UTF-8 and decoding its escapes.
    ///
    /// Strings without escapes, the common case, are validated in place and copied into a `String` once; the
    /// first escape switches to decoding into `scratch`.
    mutating func parseString() throws(JSONError) -> String {
        let opening = self.position
        let start = opening + 1
        var index = start
        var runStart = start
        var escaped = false
        while true {
            guard index < self.bytes.count else { throw JSONError(.unterminatedString, at: opening) }
            let byte = self.bytes[index]
            if byte == UInt8(ascii: "\"") {
                break
            } else if byte == UInt8(ascii: "\\") {
                if !escaped {
                    escaped = true
                    self.scratch.removeAll(keepingCapacity: true)
                }
                self.scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: self.bytes[runStart..<index]))
                index = try self.decodeEscape(at: index)
                runStart = index
            } else if byte < 0x20 {
                throw JSONError(.controlCharacter(byte), at: index)
            } else if byte < 0x80 {
                index += 1
            } else {
                index += try self.validateUTF8Sequence(at: index)
            }
        }
        self.position = index + 1
        if !escaped {
            guard index - start <= self.limits.maxStringBytes else {
                throw JSONError(.stringTooLong(limit: self.limits.maxStringBytes), at: opening)
            }
            return String(decoding: UnsafeRawBufferPointer(rebasing: self.bytes[start..<index]), as: UTF8.self)
        }
        self.scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: self.bytes[runStart..<index]))
        guard self.scratch.count <= self.limits.maxStringBytes else {
            throw JSONError(.stringTooLong(limit: self.limits.maxStringBytes), at: opening)
        }
        return String(decoding: self.scratch, as: UTF8.self)
    }

    /// Decodes the escape whose backslash is at `index` into `scratch`.
    ///
    /// - Returns: the offset just past the escape.
    mutating func decodeEscape(at index: Int) throws(JSONError) -> Int {
        guard index + 1 < self.bytes.count else { throw JSONError(.unterminatedString, at: index) }
        let decoded: UInt8
        switch self.bytes[index + 1] {
        case UInt8(ascii: "\""): decoded = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): decoded = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): decoded = UInt8(ascii: "/")
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = UInt8(ascii: "\n")
        case UInt8(ascii: "r"): decoded = UInt8(ascii: "\r")
        case UInt8(ascii: "t"): decoded = UInt8(ascii: "\t")
        case UInt8(ascii: "u"):
            return try self.decodeUnicodeEscape(at: index)
        default:
            throw JSONError(.invalidEscape, at: index)
        }
        self.scratch.append(decoded)
        return index + 2
    }

    /// Decodes a `\u` escape (four hex digits), or a surrogate pair of two, at `index` into `scratch` as UTF-8.
    ///
    /// - Returns: the offset just past the escape or pair.
    mutating func decodeUnicodeEscape(at index: Int) throws(JSONError) -> Int {
        let first = try self.readHex4(at: index + 2)
        let scalarValue: UInt32
        var end = index + 6
        switch first {
        case 0xD800..<0xDC00:
            guard end + 1 < self.bytes.count, self.bytes[end] == UInt8(ascii: "\\"),
                self.bytes[end + 1] == UInt8(ascii: "u")
            else {
                throw JSONError(.unpairedSurrogate, at: index)
            }
            let second = try self.readHex4(at: end + 2)
            guard (0xDC00..<0xE000).contains(second) else { throw JSONError(.unpairedSurrogate, at: index) }
            scalarValue = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            end += 6
        case 0xDC00..<0xE000:
            throw JSONError(.unpairedSurrogate, at: index)
        default:
            scalarValue = first
        }
        // Surrogates are excluded above, so every value left is a scalar.
        let scalar = Unicode.Scalar(scalarValue)!
        for unit in UTF8.encode(scalar)! {
            self.scratch.append(unit)
        }
        return end
    }

    /// Reads four hexadecimal digits at `index`.
    func readHex4(at index: Int) throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for offset in 0..<4 {
            guard index + offset < self.bytes.count else { throw JSONError(.invalidHexDigit, at: index + offset) }
            let byte = self.bytes[index + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONError(.invalidHexDigit, at: index + offset)
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Checks the multi-byte UTF-8 sequence starting at `index` (RFC 3629: no overlong forms, no surrogates,
    /// nothing above U+10FFFF).
    ///
    /// - Returns: the length of the sequence.
    func validateUTF8Sequence(at index: Int) throws(JSONError) -> Int {
        let lead = self.bytes[index]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            secondRange = 0x80...0x9F
        case 0xF0:
            length = 4
            secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            secondRange = 0x80...0x8F
        default: throw JSONError(.invalidUTF8, at: index)
        }
        guard index + length <= self.bytes.count, secondRange.contains(self.bytes[index + 1]) else {
            throw JSONError(.invalidUTF8, at: index)
        }
        for offset in 2..<length where self.bytes[index + offset] & 0xC0 != 0x80 {
            throw JSONError(.invalidUTF8, at: index)
        }
        return length
    }
}

/// The little JSON that JWT headers and claims need: a strict, bounded reader and a deterministic writer.
///
/// Self-contained on purpose, so that it can later give way to a general JSON module without touching the rest of
/// the token code. The reader accepts RFC 8259 JSON text only: no trailing commas, comments, single quotes, leading
/// zeros, lone surrogates, invalid UTF-8, unescaped control characters, duplicate object keys or content after the
/// value. Its input is at most ``maximumInputLength`` bytes and containers nest at most ``maximumDepth`` deep.
enum TokenJSON {
    /// The largest input the reader accepts, in bytes.
    static let maximumInputLength = 8 * 1024
    /// The deepest nesting of arrays and objects the reader accepts; the top-level object counts as one.
    static let maximumDepth = 4

    /// A JSON value. Objects keep their members in order: the reader in input order, the writer in the given order.
    indirect enum Value {
        case null
        case bool(Bool)
        case int(Int64)
        case double(Double)
        case string(String)
        case array([Value])
        case object([(key: String, value: Value)])

        /// The members of an object, nil for any other value.
        var objectMembers: [(key: String, value: Value)]? {
            if case .object(let members) = self {
                return members
            }
            return nil
        }

        /// The value of the member named `key` if this is an object that has one.
        ///
        /// - Parameters:
        ///   - key: The member name.
        subscript(key: String) -> Value? {
            self.objectMembers?.first { $0.key == key }?.value
        }
    }

    /// Why the reader refused its input.
    enum Failure: Error, Hashable {
        /// The input is longer than ``maximumInputLength``.
        case tooLarge
        /// The input nests deeper than ``maximumDepth``.
        case tooDeep
        /// The input is not JSON text.
        case malformed
    }

    /// Reads one JSON value from `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: The complete JSON text, optionally surrounded by whitespace.
    /// - Returns: The value.
    /// - Throws: ``Failure`` if the input is too large, too deep or not strict JSON.
    static func parse(_ bytes: [UInt8]) throws(Failure) -> Value {
        guard bytes.count <= Self.maximumInputLength else {
            throw .tooLarge
        }
        var reader = Reader(bytes: bytes)
        reader.skipWhitespace()
        let value = try reader.readValue(depth: 0)
        reader.skipWhitespace()
        guard reader.isAtEnd else {
            throw .malformed
        }
        return value
    }

    /// Writes `value` as compact JSON text: no whitespace, members in their given order, strings escaped minimally.
    ///
    /// - Parameters:
    ///   - value: The value; doubles must be finite.
    /// - Returns: The UTF-8 text.
    static func write(_ value: Value) -> [UInt8] {
        var output: [UInt8] = []
        Self.write(value, into: &output)
        return output
    }

    private static func write(_ value: Value, into output: inout [UInt8]) {
        switch value {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let flag):
            output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let number):
            output.append(contentsOf: String(number).utf8)
        case .double(let number):
            output.append(contentsOf: String(number).utf8)
        case .string(let text):
            Self.writeString(text, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 {
                    output.append(UInt8(ascii: ","))
                }
                Self.write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 {
                    output.append(UInt8(ascii: ","))
                }
                Self.writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                Self.write(member.value, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ text: String, into output: inout [UInt8]) {
        let hexDigits = Array("0123456789abcdef".utf8)
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): output.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): output.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): output.append(contentsOf: #"\t"#.utf8)
            case 0x08: output.append(contentsOf: #"\b"#.utf8)
            case 0x0C: output.append(contentsOf: #"\f"#.utf8)
            case 0x00..<0x20:
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// A cursor over the input bytes.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        var isAtEnd: Bool {
            self.index >= self.bytes.count
        }

        var current: UInt8? {
            self.index < self.bytes.count ? self.bytes[self.index] : nil
        }

        mutating func skipWhitespace() {
            while let byte = self.current,
                byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
                    || byte == UInt8(ascii: "\r")
            {
                self.index += 1
            }
        }

        mutating func expect(_ literal: String) throws(Failure) {
            for byte in literal.utf8 {
                guard self.current == byte else {
                    throw .malformed
                }
                self.index += 1
            }
        }

        mutating func readValue(depth: Int) throws(Failure) -> Value {
            guard let byte = self.current else {
                throw .malformed
            }
            switch byte {
            case UInt8(ascii: "{"):
                return try self.readObject(depth: depth + 1)
            case UInt8(ascii: "["):
                return try self.readArray(depth: depth + 1)
            case UInt8(ascii: "\""):
                return .string(try self.readString())
            case UInt8(ascii: "t"):
                try self.expect("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try self.expect("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try self.expect("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return try self.readNumber()
            default:
                throw .malformed
            }
        }

        mutating func readObject(depth: Int) throws(Failure) -> Value {
            guard depth <= TokenJSON.maximumDepth else {
                throw .tooDeep
            }
            self.index += 1
            var members: [(key: String, value: Value)] = []
            var keys: Set<String> = []
            self.skipWhitespace()
            if self.current == UInt8(ascii: "}") {
                self.index += 1
                return .object(members)
            }
            while true {
                self.skipWhitespace()
                guard self.current == UInt8(ascii: "\"") else {
                    throw .malformed
                }
                let key = try self.readString()
                guard keys.insert(key).inserted else {
                    throw .malformed
                }
                self.skipWhitespace()
                try self.expect(":")
                self.skipWhitespace()
                members.append((key: key, value: try self.readValue(depth: depth)))
                self.skipWhitespace()
                switch self.current {
                case UInt8(ascii: ","):
                    self.index += 1
                case UInt8(ascii: "}"):
                    self.index += 1
                    return .object(members)
                default:
                    throw .malformed
                }
            }
        }

        mutating func readArray(depth: Int) throws(Failure) -> Value {
            guard depth <= TokenJSON.maximumDepth else {
                throw .tooDeep
            }
            self.index += 1
            var elements: [Value] = []
            self.skipWhitespace()
            if self.current == UInt8(ascii: "]") {
                self.index += 1
                return .array(elements)
            }
            while true {
                self.skipWhitespace()
                elements.append(try self.readValue(depth: depth))
                self.skipWhitespace()
                switch self.current {
                case UInt8(ascii: ","):
                    self.index += 1
                case UInt8(ascii: "]"):
                    self.index += 1
                    return .array(elements)
                default:
                    throw .malformed
                }
            }
        }

        mutating func readString() throws(Failure) -> String {
            self.index += 1
            var output: [UInt8] = []
            while true {
                guard let byte = self.current else {
                    throw .malformed
                }
                self.index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    // Raw bytes were copied through; this is where invalid UTF-8 is caught.
                    guard let text = String(validating: output, as: UTF8.self) else {
                        throw .malformed
                    }
                    return text
                case UInt8(ascii: "\\"):
                    try self.readEscape(into: &output)
                case 0x00..<0x20:
                    throw .malformed
                default:
                    output.append(byte)
                }
            }
        }

        mutating func readEscape(into output: inout [UInt8]) throws(Failure) {
            guard let byte = self.current else {
                throw .malformed
            }
            self.index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
                output.append(byte)
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(UInt8(ascii: "\n"))
            case UInt8(ascii: "r"): output.append(UInt8(ascii: "\r"))
            case UInt8(ascii: "t"): output.append(UInt8(ascii: "\t"))
            case UInt8(ascii: "u"):
                var scalar = UInt32(try self.readHexQuad())
                if (0xD800..<0xDC00).contains(scalar) {
                    // A high surrogate must be followed by an escaped low surrogate.
                    try self.expect("\\u")
                    let low = UInt32(try self.readHexQuad())
                    guard (0xDC00..<0xE000).contains(low) else {
                        throw .malformed
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let unicodeScalar = Unicode.Scalar(scalar) else {
                    throw .malformed
                }
                output.append(contentsOf: String(Character(unicodeScalar)).utf8)
            default:
                throw .malformed
            }
        }

        mutating func readHexQuad() throws(Failure) -> UInt16 {
            var value: UInt16 = 0
            for _ in 0..<4 {
                guard let byte = self.current else {
                    throw .malformed
                }
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw .malformed
                }
                value = value << 4 | UInt16(digit)
                self.index += 1
            }
            return value
        }

        mutating func readNumber() throws(Failure) -> Value {
            let start = self.index
            var isInteger = true
            if self.current == UInt8(ascii: "-") {
                self.index += 1
            }
            // Integer part: "0" alone or a non-zero digit followed by digits.
            if self.current == UInt8(ascii: "0") {
                self.index += 1
            } else {
                guard self.skipDigits() > 0 else {
                    throw .malformed
                }
            }
            if self.current == UInt8(ascii: ".") {
                isInteger = false
                self.index += 1
                guard self.skipDigits() > 0 else {
                    throw .malformed
                }
            }
            if self.current == UInt8(ascii: "e") || self.current == UInt8(ascii: "E") {
                isInteger = false
                self.index += 1
                if self.current == UInt8(ascii: "+") || self.current == UInt8(ascii: "-") {
                    self.index += 1
                }
                guard self.skipDigits() > 0 else {
                    throw .malformed
                }
            }
            let text = String(decoding: self.bytes[start..<self.index], as: UTF8.self)
            if isInteger, let integer = Int64(text) {
                return .int(integer)
            }
            guard let number = Double(text), number.isFinite else {
                throw .malformed
            }
            return .double(number)
        }

        /// Skips ASCII digits and returns how many there were.
        mutating func skipDigits() -> Int {
            var count = 0
            while let byte = self.current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                self.index += 1
                count += 1
            }
            return count
        }
    }
}

/// The parser's working state over one input: a cursor, the running node count and a scratch buffer for strings
/// with escapes.
struct JSONScanner {
    let bytes: UnsafeRawBufferPointer
    let limits: JSONParser.Limits
    /// The offset of the next byte to look at.
    var position = 0
    /// Values started so far.
    var nodeCount = 0
    /// Decoded bytes of the string being parsed, when it has escapes; reused from string to string.
    var scratch: [UInt8] = []

    init(bytes: UnsafeRawBufferPointer, limits: JSONParser.Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    /// Parses the whole input as one value followed by optional whitespace.
    mutating func parseDocument() throws(JSONError) -> JSONValue {
        var frames: [JSONContainerFrame] = []
        var value: JSONValue
        nextValue: while true {
            self.skipWhitespace()
            let start = self.position
            try self.countNode(startingAt: start)
            if !frames.isEmpty {
                frames[frames.count - 1].started += 1
                guard frames[frames.count - 1].started <= self.limits.maxElementsPerContainer else {
                    throw JSONError(.tooManyElements(limit: self.limits.maxElementsPerContainer), at: start)
                }
            }
            guard start < self.bytes.count else { throw JSONError(.unexpectedEndOfInput, at: start) }
            switch self.bytes[start] {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                let isObject = self.bytes[start] == UInt8(ascii: "{")
                guard frames.count < self.limits.maxDepth else {
                    throw JSONError(.nestingTooDeep(limit: self.limits.maxDepth), at: start)
                }
                self.position += 1
                self.skipWhitespace()
                if self.position < self.bytes.count,
                    self.bytes[self.position] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                {
                    self.position += 1
                    value = isObject ? .object(JSONObject()) : .array([])
                } else {
                    frames.append(JSONContainerFrame(isObject: isObject))
                    if isObject {
                        try self.parseMemberName(into: &frames[frames.count - 1])
                    }
                    continue nextValue
                }
            case UInt8(ascii: "\""):
                value = .string(try self.parseString())
            case UInt8(ascii: "t"):
                try self.expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try self.expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try self.expectLiteral("null")
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = try self.parseNumber()
            case let byte:
                throw JSONError(.unexpectedByte(byte), at: start)
            }

            // A value is complete: hand it to the open containers, closing as many as the input closes.
            while true {
                guard !frames.isEmpty else {
                    self.skipWhitespace()
                    guard self.position == self.bytes.count else {
                        throw JSONError(.trailingCharacters, at: self.position)
                    }
                    return value
                }
                let top = frames.count - 1
                frames[top].append(value)
                self.skipWhitespace()
                guard self.position < self.bytes.count else {
                    throw JSONError(.unexpectedEndOfInput, at: self.position)
                }
                let byte = self.bytes[self.position]
                if byte == UInt8(ascii: ",") {
                    self.position += 1
                    if frames[top].isObject {
                        try self.parseMemberName(into: &frames[top])
                    }
                    continue nextValue
                }
                guard byte == frames[top].closingByte else {
                    throw JSONError(.expectedCommaOrClose(frames[top].closingByte), at: self.position)
                }
                self.position += 1
                value = frames.removeLast().finish()
            }
        }
    }

    /// Parses `"name" :` of the next member, rejecting a name the object already has.
    mutating func parseMemberName(into frame: inout JSONContainerFrame) throws(JSONError) {
        self.skipWhitespace()
        let start = self.position
        guard start < self.bytes.count else { throw JSONError(.unexpectedEndOfInput, at: start) }
        guard self.bytes[start] == UInt8(ascii: "\"") else { throw JSONError(.expectedKey, at: start) }
        let key = try self.parseString()
        guard !frame.object.contains(key: key) else { throw JSONError(.duplicateKey, at: start) }
        self.skipWhitespace()
        guard self.position < self.bytes.count else { throw JSONError(.unexpectedEndOfInput, at: self.position) }
        guard self.bytes[self.position] == UInt8(ascii: ":") else {
            throw JSONError(.expectedColon, at: self.position)
        }
        self.position += 1
        frame.pendingKey = key
    }

    /// Counts one more value against `maxTotalNodes`.
    mutating func countNode(startingAt start: Int) throws(JSONError) {
        self.nodeCount += 1
        guard self.nodeCount <= self.limits.maxTotalNodes else {
            throw JSONError(.tooManyNodes(limit: self.limits.maxTotalNodes), at: start)
        }
    }

    /// Consumes `literal` exactly; anything else at the cursor is an invalid literal.
    mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        let expected = UnsafeRawBufferPointer(start: literal.utf8Start, count: count)
        guard self.bytes.count - self.position >= count else {
            throw JSONError(.invalidLiteral, at: self.position)
        }
        for offset in 0..<count where self.bytes[self.position + offset] != expected[offset] {
            throw JSONError(.invalidLiteral, at: self.position)
        }
        self.position += count
    }

    /// Skips space, tab, line feed and carriage return, the only whitespace RFC 8259 allows.
    @inline(__always)
    mutating func skipWhitespace() {
        while self.position < self.bytes.count {
            switch self.bytes[self.position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                self.position += 1
            default:
                return
            }
        }
    }
}

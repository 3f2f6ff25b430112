/// Writes JSON text straight into bytes, member by member, exactly as `JSONWriter` writes the tree with the same
/// members in the same order: compact, the same escaping and number forms. No tree is built, so a message costs
/// its bytes and nothing else.
///
/// The caller opens and closes objects and names each member once; the writer puts the commas in.
public struct JSONByteWriter: JSONMemberSink {
    /// The text written so far.
    public private(set) var bytes: [UInt8]
    // Whether the next member is the first of its object (no comma before it).
    private var atFirstMember = true

    /// An empty writer.
    ///
    /// - Parameter capacity: bytes to reserve up front.
    public init(capacity: Int = 256) {
        self.bytes = []
        self.bytes.reserveCapacity(capacity)
    }

    /// Opens an object: `{`.
    public mutating func beginObject() {
        self.bytes.append(UInt8(ascii: "{"))
        self.atFirstMember = true
    }

    /// Closes the innermost open object: `}`.
    public mutating func endObject() {
        self.bytes.append(UInt8(ascii: "}"))
        self.atFirstMember = false
    }

    /// Writes a member's name and colon, after a comma unless it is its object's first member; the value follows.
    ///
    /// - Parameter key: the member name.
    public mutating func key(_ key: String) {
        if self.atFirstMember {
            self.atFirstMember = false
        } else {
            self.bytes.append(UInt8(ascii: ","))
        }
        JSONWriter.appendString(key, to: &self.bytes)
        self.bytes.append(UInt8(ascii: ":"))
    }

    /// Writes a member.
    ///
    /// - Parameters:
    ///   - key: the member name.
    ///   - value: the value.
    public mutating func member(_ key: String, _ value: JSONValue) {
        self.key(key)
        JSONWriter.write(value, into: &self.bytes)
    }

    /// Writes a member whose value is a string.
    ///
    /// - Parameters:
    ///   - key: the member name.
    ///   - string: the value.
    public mutating func member(_ key: String, string: String) {
        self.key(key)
        JSONWriter.appendString(string, to: &self.bytes)
    }

    /// Writes a member whose value is a string, or `null` for nil.
    ///
    /// - Parameters:
    ///   - key: the member name.
    ///   - string: the value, or nil for `null`.
    public mutating func member(_ key: String, optionalString string: String?) {
        self.key(key)
        if let string {
            JSONWriter.appendString(string, to: &self.bytes)
        } else {
            self.bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
        }
    }

    /// Writes a member whose value is an integer.
    ///
    /// - Parameters:
    ///   - key: the member name.
    ///   - int: the value.
    public mutating func member(_ key: String, int: Int64) {
        self.key(key)
        JSONWriter.appendInteger(int, to: &self.bytes)
    }

    /// Writes a member whose value is `true` or `false`.
    ///
    /// - Parameters:
    ///   - key: the member name.
    ///   - bool: the value.
    public mutating func member(_ key: String, bool: Bool) {
        self.key(key)
        JSONWriter.write(.bool(bool), into: &self.bytes)
    }

    /// Writes a member whose value is an object whose members `build` writes.
    ///
    /// - Parameters:
    ///   - key: the member name.
    ///   - build: writes the inner object's members.
    public mutating func member(_ key: String, object build: (inout JSONByteWriter) -> Void) {
        self.key(key)
        self.beginObject()
        build(&self)
        self.endObject()
    }
    /// Opens an array: `[`; each element starts with `element()`.
    public mutating func beginArray() {
        self.bytes.append(UInt8(ascii: "["))
        self.atFirstMember = true
    }

    /// Closes the innermost open array: `]`.
    public mutating func endArray() {
        self.bytes.append(UInt8(ascii: "]"))
        self.atFirstMember = false
    }

    /// Starts an array element: a comma unless it is the array's first; the value follows.
    public mutating func element() {
        if self.atFirstMember {
            self.atFirstMember = false
        } else {
            self.bytes.append(UInt8(ascii: ","))
        }
    }

    /// Appends a string value (an array element, after `element()`).
    ///
    /// - Parameter string: the value.
    public mutating func string(_ string: String) {
        JSONWriter.appendString(string, to: &self.bytes)
    }

    // MARK: Names encoded once

    /// Writes a member's name from its bytes encoded once (`"name":`), after a comma unless it is its object's
    /// first member; the value follows.
    ///
    /// - Parameter key: the encoded name.
    public mutating func key(_ key: JSONEncodedKey) {
        if self.atFirstMember {
            self.atFirstMember = false
        } else {
            self.bytes.append(UInt8(ascii: ","))
        }
        self.bytes.append(contentsOf: key.bytes)
    }

    /// Writes a member whose value is a string.
    ///
    /// - Parameters:
    ///   - key: the encoded name.
    ///   - string: the value.
    public mutating func member(_ key: JSONEncodedKey, string: String) {
        self.key(key)
        JSONWriter.appendString(string, to: &self.bytes)
    }

    /// Writes a member whose value is a string, or `null` for nil.
    ///
    /// - Parameters:
    ///   - key: the encoded name.
    ///   - string: the value, or nil for `null`.
    public mutating func member(_ key: JSONEncodedKey, optionalString string: String?) {
        self.key(key)
        if let string {
            JSONWriter.appendString(string, to: &self.bytes)
        } else {
            self.bytes.append(contentsOf: JSONEncodedKey.null)
        }
    }

    /// Writes a member whose value is an integer.
    ///
    /// - Parameters:
    ///   - key: the encoded name.
    ///   - int: the value.
    public mutating func member(_ key: JSONEncodedKey, int: Int64) {
        self.key(key)
        JSONWriter.appendInteger(int, to: &self.bytes)
    }

    /// Writes a member whose value is an integer, or `null` for nil.
    ///
    /// - Parameters:
    ///   - key: the encoded name.
    ///   - int: the value, or nil for `null`.
    public mutating func member(_ key: JSONEncodedKey, optionalInt int: Int64?) {
        self.key(key)
        if let int {
            JSONWriter.appendInteger(int, to: &self.bytes)
        } else {
            self.bytes.append(contentsOf: JSONEncodedKey.null)
        }
    }

    /// Writes a member whose value is `true` or `false`.
    ///
    /// - Parameters:
    ///   - key: the encoded name.
    ///   - bool: the value.
    public mutating func member(_ key: JSONEncodedKey, bool: Bool) {
        if self.atFirstMember {
            self.atFirstMember = false
        } else {
            self.bytes.append(UInt8(ascii: ","))
        }
        self.bytes.append(contentsOf: bool ? key.withTrue : key.withFalse)
    }

    /// Writes a member whose value is a string of 16 lower-case hex digits (a 64-bit checksum, as
    /// `RosterChecksum.hex` spells it).
    ///
    /// - Parameters:
    ///   - key: the encoded name.
    ///   - value: the number.
    public mutating func member(_ key: JSONEncodedKey, hexDigits value: UInt64) {
        self.key(key)
        self.bytes.append(UInt8(ascii: "\""))
        for shift in stride(from: 60, through: 0, by: -4) {
            let digit = UInt8(truncatingIfNeeded: value >> UInt64(shift)) & 0x0F
            self.bytes.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
        }
        self.bytes.append(UInt8(ascii: "\""))
    }

    /// Writes a member whose value is any JSON value.
    ///
    /// - Parameters:
    ///   - key: the encoded name.
    ///   - value: the value.
    public mutating func member(_ key: JSONEncodedKey, _ value: JSONValue) {
        self.key(key)
        JSONWriter.write(value, into: &self.bytes)
    }
}

/// A member name encoded once as JSON text with its colon (`"name":`), for names a writer puts in every message:
/// the name is quoted and escaped once, not on each use.
public struct JSONEncodedKey: Sendable {
    /// `"name":` as UTF-8.
    public let bytes: [UInt8]
    /// `"name":true` and `"name":false`, for a boolean member written in one piece.
    let withTrue: [UInt8]
    let withFalse: [UInt8]

    /// Encodes `name`.
    ///
    /// - Parameter name: the member name.
    public init(_ name: String) {
        var bytes: [UInt8] = []
        JSONWriter.appendString(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        self.bytes = bytes
        self.withTrue = bytes + Self.true
        self.withFalse = bytes + Self.false
    }

    static let null: [UInt8] = Array("null".utf8)
    static let `true`: [UInt8] = Array("true".utf8)
    static let `false`: [UInt8] = Array("false".utf8)
}

/// Writes RESP: commands as a client sends them, and any `RESPValue` as a server would reply.
public enum RESPEncoder {
    /// Appends a command, an array of bulk strings, to `buffer`.
    ///
    /// - Parameters:
    ///   - arguments: the command name and its arguments, each any bytes.
    ///   - buffer: the buffer to append to.
    public static func encodeCommand<Argument: Collection<UInt8>>(
        _ arguments: [Argument],
        into buffer: inout [UInt8]
    ) {
        Self.appendHeader(UInt8(ascii: "*"), arguments.count, to: &buffer)
        for argument in arguments {
            Self.appendBulkString(argument, to: &buffer)
        }
    }

    /// Appends a command given as text, each argument as its UTF-8 bytes, to `buffer`.
    ///
    /// - Parameters:
    ///   - arguments: the command name and its arguments.
    ///   - buffer: the buffer to append to.
    public static func encodeCommand(_ arguments: [String], into buffer: inout [UInt8]) {
        Self.encodeCommand(arguments.map(\.utf8), into: &buffer)
    }

    /// Appends `value` to `buffer`.
    ///
    /// A simple string or error cannot hold CR or LF; any it contains are written as spaces. Doubles are written
    /// as the shortest text that reads back as the same `Double`, or `inf`, `-inf` and `nan`.
    ///
    /// - Parameters:
    ///   - value: the value to write.
    ///   - buffer: the buffer to append to.
    public static func encode(_ value: RESPValue, into buffer: inout [UInt8]) {
        switch value {
        case .simpleString(let text):
            Self.appendLine(UInt8(ascii: "+"), text, to: &buffer)
        case .error(let text):
            Self.appendLine(UInt8(ascii: "-"), text, to: &buffer)
        case .integer(let integer):
            buffer.append(UInt8(ascii: ":"))
            buffer.append(contentsOf: String(integer).utf8)
            Self.appendCRLF(to: &buffer)
        case .bulkString(let bytes):
            if let bytes {
                Self.appendBulkString(bytes, to: &buffer)
            } else {
                Self.appendHeader(UInt8(ascii: "$"), -1, to: &buffer)
            }
        case .array(let elements):
            guard let elements else {
                Self.appendHeader(UInt8(ascii: "*"), -1, to: &buffer)
                return
            }
            Self.appendHeader(UInt8(ascii: "*"), elements.count, to: &buffer)
            for element in elements {
                Self.encode(element, into: &buffer)
            }
        case .null:
            buffer.append(UInt8(ascii: "_"))
            Self.appendCRLF(to: &buffer)
        case .map(let entries):
            Self.appendHeader(UInt8(ascii: "%"), entries.count, to: &buffer)
            for entry in entries {
                Self.encode(entry.key, into: &buffer)
                Self.encode(entry.value, into: &buffer)
            }
        case .double(let double):
            buffer.append(UInt8(ascii: ","))
            if double.isNaN {
                buffer.append(contentsOf: "nan".utf8)
            } else if double.isInfinite {
                buffer.append(contentsOf: (double < 0 ? "-inf" : "inf").utf8)
            } else {
                buffer.append(contentsOf: String(double).utf8)
            }
            Self.appendCRLF(to: &buffer)
        case .boolean(let boolean):
            buffer.append(UInt8(ascii: "#"))
            buffer.append(boolean ? UInt8(ascii: "t") : UInt8(ascii: "f"))
            Self.appendCRLF(to: &buffer)
        }
    }

    private static func appendHeader(_ type: UInt8, _ count: Int, to buffer: inout [UInt8]) {
        buffer.append(type)
        buffer.append(contentsOf: String(count).utf8)
        Self.appendCRLF(to: &buffer)
    }

    private static func appendBulkString<Bytes: Collection<UInt8>>(_ bytes: Bytes, to buffer: inout [UInt8]) {
        Self.appendHeader(UInt8(ascii: "$"), bytes.count, to: &buffer)
        buffer.append(contentsOf: bytes)
        Self.appendCRLF(to: &buffer)
    }

    private static func appendLine(_ type: UInt8, _ text: String, to buffer: inout [UInt8]) {
        buffer.append(type)
        for byte in text.utf8 {
            buffer.append(byte == 0x0D || byte == 0x0A ? UInt8(ascii: " ") : byte)
        }
        Self.appendCRLF(to: &buffer)
    }

    private static func appendCRLF(to buffer: inout [UInt8]) {
        buffer.append(0x0D)
        buffer.append(0x0A)
    }
}

import JSONCoding

/// The members of a traffic message (`state`, `speaker`, `media`, `meeting`) read straight from its bytes: a flat
/// object of known names with scalar values, each value kept as where it lies in the input.
///
/// The scanner accepts only the plain form those messages take in practice: names of known members, written once,
/// and values that are ASCII strings without escapes, `true`, `false`, `null` or integers that fit in 64 bits.
/// Anything else (an escape, a non-ASCII byte, a nested value, a fraction, an unknown or repeated name, a syntax
/// error) makes it give up, and the message goes through the JSON parser and `ClientMessageDecoder.decode(_:)`,
/// which decide and word every refusal.
struct TrafficMessageScanner {
    /// A member the traffic messages may carry.
    enum Member: Int, CaseIterable {
        case type, id, room, group, uid, mid, cameraFacing
        case audioMuted, videoPaused, presenting, handRaised, pinned
        case recording, audioMode, sessionId, callType, active, text

        /// The member's name on the wire.
        var name: StaticString {
            switch self {
            case .type: return "type"
            case .id: return "id"
            case .room: return "room"
            case .group: return "group"
            case .uid: return "uid"
            case .mid: return "mid"
            case .cameraFacing: return "cameraFacing"
            case .audioMuted: return "audioMuted"
            case .videoPaused: return "videoPaused"
            case .presenting: return "presenting"
            case .handRaised: return "handRaised"
            case .pinned: return "pinned"
            case .recording: return "recording"
            case .audioMode: return "audioMode"
            case .sessionId: return "sessionId"
            case .callType: return "callType"
            case .active: return "active"
            case .text: return "text"
            }
        }

        /// The member named by `name`, if it is one.
        static func named(_ name: UnsafeRawBufferPointer) -> Member? {
            for member in Member.allCases where TrafficMessageScanner.equals(name, member.name) { return member }
            return nil
        }

        /// The member's bit in a set of members.
        var bit: UInt32 { 1 << UInt32(self.rawValue) }
    }

    /// A member's value, as it lies in the input.
    enum Value {
        /// An ASCII string without escapes: the bytes between its quotes.
        case string(Range<Int>)
        case bool(Bool)
        case null
        case int(Int64)
    }

    /// The longest input the JSON parser takes (`JSONParser.Limits`).
    static let maximumInputBytes = JSONParser.Limits().maxInputBytes
    /// The longest string the JSON parser takes.
    static let maximumStringBytes = JSONParser.Limits().maxStringBytes

    let bytes: UnsafeRawBufferPointer
    private var position = 0
    private var values = InlineArray<18, Value?>(repeating: nil)
    /// The members present.
    private(set) var present: UInt32 = 0

    /// Reads the members of `bytes`; nil when the message is not in the plain form this scanner takes.
    init?(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        guard bytes.count <= Self.maximumInputBytes, self.scanObject() else { return nil }
    }

    /// The value of `member`, nil when absent.
    subscript(_ member: Member) -> Value? { self.values[member.rawValue] }

    /// Whether every member present is in `allowed`.
    func hasOnly(_ allowed: [Member]) -> Bool {
        var mask: UInt32 = 0
        for member in allowed { mask |= member.bit }
        return self.present & ~mask == 0
    }

    /// The text of a string value.
    func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: self.bytes[range]), as: UTF8.self)
    }

    /// Whether the string value at `range` is `literal`.
    func string(_ range: Range<Int>, is literal: StaticString) -> Bool {
        Self.equals(UnsafeRawBufferPointer(rebasing: self.bytes[range]), literal)
    }

    /// Whether the string value at `range` is an id: not empty, without spaces or control characters.
    func isID(_ range: Range<Int>) -> Bool {
        guard !range.isEmpty else { return false }
        for index in range {
            let byte = self.bytes[index]
            guard byte > 0x20 && byte != 0x7F else { return false }
        }
        return true
    }

    static func equals(_ bytes: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count == count else { return false }
        let expected = literal.utf8Start
        for offset in 0..<count where bytes[offset] != expected[offset] { return false }
        return true
    }

    // MARK: Scanning

    private mutating func scanObject() -> Bool {
        self.skipWhitespace()
        guard self.consume(UInt8(ascii: "{")) else { return false }
        while true {
            self.skipWhitespace()
            guard let name = self.scanString(), let member = Member.named(name.bytes(in: self.bytes)),
                self.present & member.bit == 0
            else { return false }
            self.skipWhitespace()
            guard self.consume(UInt8(ascii: ":")) else { return false }
            self.skipWhitespace()
            guard let value = self.scanValue() else { return false }
            self.values[member.rawValue] = value
            self.present |= member.bit
            self.skipWhitespace()
            if self.consume(UInt8(ascii: ",")) { continue }
            guard self.consume(UInt8(ascii: "}")) else { return false }
            self.skipWhitespace()
            return self.position == self.bytes.count
        }
    }

    private mutating func scanValue() -> Value? {
        guard self.position < self.bytes.count else { return nil }
        switch self.bytes[self.position] {
        case UInt8(ascii: "\""):
            return self.scanString().map { .string($0) }
        case UInt8(ascii: "t"):
            return self.consume("true") ? .bool(true) : nil
        case UInt8(ascii: "f"):
            return self.consume("false") ? .bool(false) : nil
        case UInt8(ascii: "n"):
            return self.consume("null") ? .null : nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return self.scanInteger().map { .int($0) }
        default:
            return nil
        }
    }

    /// An ASCII string without escapes or control characters; the cursor moves past its closing quote.
    private mutating func scanString() -> Range<Int>? {
        guard self.consume(UInt8(ascii: "\"")) else { return nil }
        let start = self.position
        while self.position < self.bytes.count {
            let byte = self.bytes[self.position]
            if byte == UInt8(ascii: "\"") {
                let range = start..<self.position
                self.position += 1
                return range.count <= Self.maximumStringBytes ? range : nil
            }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
            self.position += 1
        }
        return nil
    }

    /// An integer as JSON writes it (no leading zeros, no fraction or exponent) that fits in `Int64`; `-0`, which
    /// the parser reads as a double, is not one.
    private mutating func scanInteger() -> Int64? {
        let negative = self.consume(UInt8(ascii: "-"))
        let digitsStart = self.position
        var magnitude: UInt64 = 0
        while self.position < self.bytes.count,
            case let byte = self.bytes[self.position], byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9")
        {
            let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            magnitude = sum
            self.position += 1
        }
        let digits = self.position - digitsStart
        guard digits > 0, digits == 1 || self.bytes[digitsStart] != UInt8(ascii: "0") else { return nil }
        if self.position < self.bytes.count {
            switch self.bytes[self.position] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        if negative {
            guard magnitude != 0, magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return Int64(bitPattern: 0 &- magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    private mutating func skipWhitespace() {
        while self.position < self.bytes.count {
            switch self.bytes[self.position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): self.position += 1
            default: return
            }
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard self.position < self.bytes.count, self.bytes[self.position] == byte else { return false }
        self.position += 1
        return true
    }

    private mutating func consume(_ literal: StaticString) -> Bool {
        let end = self.position + literal.utf8CodeUnitCount
        guard end <= self.bytes.count,
            Self.equals(UnsafeRawBufferPointer(rebasing: self.bytes[self.position..<end]), literal)
        else { return false }
        self.position = end
        return true
    }
}

extension Range<Int> {
    fileprivate func bytes(in buffer: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[self])
    }
}

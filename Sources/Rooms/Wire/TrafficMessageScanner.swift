import JSONCoding

/// The members of a traffic message (`state`, `speaker`, `media`, `meeting`) read straight from its bytes: a flat
/// object of known names with scalar values, each value kept as where it lies in the input.
///
/// The scanner accepts only the plain form those messages take in practice: names of known members (a `Member`, or
/// a participant flag's name), written once, and values that are ASCII strings without escapes, `true`, `false`,
/// `null` or integers that fit in 64 bits. Anything else (an escape, a non-ASCII byte, a nested value, a fraction, an
/// unknown or repeated name, a syntax error) makes it give up, and the message goes through the JSON parser and
/// `ClientMessageDecoder.decode(_:)`, which decide and word every refusal.
///
/// The values lie in storage on the stack with one slot per name (`slotCount`: the members, then the flags in
/// `ParticipantFlag.ordered`), sized from those definitions, so a new member or flag always has its slot.
struct TrafficMessageScanner {
    /// A member the traffic messages may carry, beside the participant flags.
    enum Member: Int, CaseIterable {
        case type, id, room, group, uid, mid, cameraFacing
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
            case .recording: return "recording"
            case .audioMode: return "audioMode"
            case .sessionId: return "sessionId"
            case .callType: return "callType"
            case .active: return "active"
            case .text: return "text"
            }
        }

        /// The members, kept once (`allCases` builds a new array on each use).
        static let ordered = Member.allCases
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

    /// The value slots: one per member, then one per participant flag (its ordinal after the members).
    static let slotCount = Member.ordered.count + ParticipantFlag.ordered.count
    /// The flags' names as UTF-8, by ordinal, encoded once.
    private static let flagNames = ParticipantFlag.ordered.map { Array($0.rawValue.utf8) }

    let bytes: UnsafeRawBufferPointer
    private var position = 0
    /// `slotCount` values, nil where the member is absent.
    private let values: UnsafeMutableBufferPointer<Value?>
    /// How many members are present.
    private(set) var presentCount = 0

    /// Reads the members of `bytes` and hands them to `body`, which must not keep the scanner: its values live on
    /// the stack for the call only.
    ///
    /// - Returns: what `body` returns; nil when the message is not in the plain form this scanner takes.
    static func scan<Result>(_ bytes: UnsafeRawBufferPointer, _ body: (Self) -> Result?) -> Result? {
        guard bytes.count <= Self.maximumInputBytes else { return nil }
        return withUnsafeTemporaryAllocation(of: Value?.self, capacity: Self.slotCount) { values in
            values.initialize(repeating: nil)
            var scanner = Self(bytes: bytes, values: values)
            return scanner.scanObject() ? body(scanner) : nil
        }
    }

    private init(bytes: UnsafeRawBufferPointer, values: UnsafeMutableBufferPointer<Value?>) {
        self.bytes = bytes
        self.values = values
    }

    /// The value of `member`, nil when absent.
    subscript(_ member: Member) -> Value? { self.values[member.rawValue] }

    /// The value of the participant flag of ordinal `ordinal` (`ParticipantFlag.ordered`), nil when absent.
    func flag(ordinal: Int) -> Value? { self.values[Member.ordered.count + ordinal] }

    /// Whether every member present is in `allowed`, and every flag present one that `allowsFlag` allows.
    func hasOnly(_ allowed: [Member], flags allowsFlag: (ParticipantFlag) -> Bool = { _ in false }) -> Bool {
        var allowedPresent = 0
        for member in allowed where self.values[member.rawValue] != nil { allowedPresent += 1 }
        if allowedPresent < self.presentCount {
            for (ordinal, flag) in ParticipantFlag.ordered.enumerated() where self.flag(ordinal: ordinal) != nil {
                if allowsFlag(flag) { allowedPresent += 1 }
            }
        }
        return allowedPresent == self.presentCount
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

    private static func equals(_ bytes: UnsafeRawBufferPointer, _ expected: [UInt8]) -> Bool {
        guard bytes.count == expected.count else { return false }
        for offset in 0..<expected.count where bytes[offset] != expected[offset] { return false }
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

    /// The slot of the member or flag named by `name`, if it is one.
    private static func slot(named name: UnsafeRawBufferPointer) -> Int? {
        for member in Member.ordered where Self.equals(name, member.name) { return member.rawValue }
        let flagNames = Self.flagNames
        for ordinal in flagNames.indices where Self.equals(name, flagNames[ordinal]) {
            return Member.ordered.count + ordinal
        }
        return nil
    }

    private mutating func scanObject() -> Bool {
        self.skipWhitespace()
        guard self.consume(UInt8(ascii: "{")) else { return false }
        while true {
            self.skipWhitespace()
            guard let name = self.scanString(), let slot = Self.slot(named: name.bytes(in: self.bytes)),
                self.values[slot] == nil
            else { return false }
            self.skipWhitespace()
            guard self.consume(UInt8(ascii: ":")) else { return false }
            self.skipWhitespace()
            guard let value = self.scanValue() else { return false }
            self.values[slot] = value
            self.presentCount += 1
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

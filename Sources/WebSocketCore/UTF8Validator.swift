/// Streaming UTF-8 validation (RFC 3629) for text messages that arrive in fragments.
///
/// Feed the bytes of a message in any number of pieces; `validate` returns false at the first piece that holds a
/// byte that can never be part of valid UTF-8, so a connection can fail fast (RFC 6455 §8.1). Once a piece has
/// failed, every later piece fails too, until `reset()`.
///
/// Runs of ASCII are skipped sixteen bytes at a time; everything else goes through a shift-based DFA, one table
/// load and one shift per byte. Each of the 256 table rows packs, for every state, the state that byte leads to:
/// the states are bit offsets (multiples of 6) into the row, so the next state is `row >> state`, whose low six
/// bits are all that the next shift looks at.
public struct UTF8Validator: Sendable {
    // The DFA state, a bit offset into a transition row; only the low six bits are meaningful.
    private var state: UInt64 = State.accept

    public init() {}

    /// Whether the bytes so far end on a character boundary.
    public var isComplete: Bool { self.state & State.mask == State.accept }

    /// Forgets any partial sequence (and any failure), to start a new message.
    public mutating func reset() {
        self.state = State.accept
    }

    /// Validates the next bytes of the message.
    ///
    /// - Parameter bytes: the next piece of the message.
    /// - Returns: false as soon as the bytes so far cannot be a prefix of valid UTF-8.
    public mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return self.state & State.mask != State.error }
        let count = bytes.count
        let asciiMask: UInt64 = 0x8080_8080_8080_8080
        var state = self.state
        let valid = UTF8Validator.transitions.withUnsafeBufferPointer { table -> Bool in
            var index = 0
            while index < count {
                if state & State.mask == State.accept {
                    // Between characters: skip whole words of ASCII.
                    while index &+ 16 <= count {
                        let low = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                        let high = base.loadUnaligned(fromByteOffset: index &+ 8, as: UInt64.self)
                        guard (low | high) & asciiMask == 0 else { break }
                        index &+= 16
                    }
                    if index &+ 8 <= count,
                        base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & asciiMask == 0
                    {
                        index &+= 8
                        continue
                    }
                } else if state & State.mask == State.error {
                    return false
                }
                // Run the DFA over the next block; errors are sticky, so one check per block is enough.
                let end = min(count, index &+ 16)
                while index < end {
                    let byte = base.load(fromByteOffset: index, as: UInt8.self)
                    state = table[Int(byte)] &>> state
                    index &+= 1
                }
            }
            return state & State.mask != State.error
        }
        self.state = state & State.mask
        return valid
    }

    /// The DFA states, as bit offsets into a transition row.
    private enum State {
        static let mask: UInt64 = 63
        /// On a character boundary.
        static let accept: UInt64 = 0
        /// The stream can never become valid again.
        static let error: UInt64 = 6
        /// One, two or three continuation bytes (80...BF) still expected.
        static let tail1: UInt64 = 12
        static let tail2: UInt64 = 18
        static let tail3: UInt64 = 24
        /// After E0: A0...BF (no overlongs), then one more.
        static let afterE0: UInt64 = 30
        /// After ED: 80...9F (no surrogates), then one more.
        static let afterED: UInt64 = 36
        /// After F0: 90...BF (no overlongs), then two more.
        static let afterF0: UInt64 = 42
        /// After F4: 80...8F (nothing above U+10FFFF), then two more.
        static let afterF4: UInt64 = 48

        static let all: [UInt64] = [accept, error, tail1, tail2, tail3, afterE0, afterED, afterF0, afterF4]

        /// Where `byte` leads from `state` (RFC 3629 §4).
        static func next(from state: UInt64, on byte: UInt8) -> UInt64 {
            switch state {
            case accept:
                switch byte {
                case 0x00...0x7F: return accept
                case 0xC2...0xDF: return tail1
                case 0xE0: return afterE0
                case 0xE1...0xEC, 0xEE...0xEF: return tail2
                case 0xED: return afterED
                case 0xF0: return afterF0
                case 0xF1...0xF3: return tail3
                case 0xF4: return afterF4
                default: return error
                }
            case tail1: return (0x80...0xBF).contains(byte) ? accept : error
            case tail2: return (0x80...0xBF).contains(byte) ? tail1 : error
            case tail3: return (0x80...0xBF).contains(byte) ? tail2 : error
            case afterE0: return (0xA0...0xBF).contains(byte) ? tail1 : error
            case afterED: return (0x80...0x9F).contains(byte) ? tail1 : error
            case afterF0: return (0x90...0xBF).contains(byte) ? tail2 : error
            case afterF4: return (0x80...0x8F).contains(byte) ? tail2 : error
            default: return error
            }
        }
    }

    /// One row per byte value: for each state `s`, bits `s..<s+6` hold the state the byte leads to.
    private static let transitions: [UInt64] = (0...255).map { (byte: Int) -> UInt64 in
        State.all.reduce(0) { row, state in row | State.next(from: state, on: UInt8(byte)) << state }
    }
}

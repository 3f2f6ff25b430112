import TestSupport
import Testing
import WebSocketCore

/// What a validator must conclude about a whole byte string.
enum UTF8Verdict: Equatable, Sendable {
    /// Valid UTF-8 ending on a character boundary.
    case valid
    /// A valid prefix that stops inside a character: every piece passes, but `isComplete` is false.
    case incomplete
    /// The byte at this index is the first that no valid continuation allows.
    case invalid(at: Int)
}

/// A named byte string and its verdict, after the Markus Kuhn stress test and Autobahn cases 6.x.
struct UTF8Vector: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let verdict: UTF8Verdict

    init(_ name: String, _ bytes: [UInt8], _ verdict: UTF8Verdict) {
        self.name = name
        self.bytes = bytes
        self.verdict = verdict
    }

    var testDescription: String { self.name }

    /// The same vector behind `count` bytes of ASCII, so it starts in the middle of a fast-path word.
    func prefixed(byASCII count: Int) -> UTF8Vector {
        let verdict: UTF8Verdict
        switch self.verdict {
        case .valid, .incomplete: verdict = self.verdict
        case .invalid(let index): verdict = .invalid(at: index + count)
        }
        return UTF8Vector(self.name, Array(repeating: UInt8(ascii: "a"), count: count) + self.bytes, verdict)
    }
}

/// The result of feeding a byte string to a validator in pieces.
struct UTF8FeedResult: Equatable {
    /// The index of the first piece for which `validate` returned false, if any.
    var failedPiece: Int?
    var isComplete: Bool
}

/// Feeds `bytes` to a fresh validator in pieces of the given sizes (the last piece takes what is left).
func feed(_ bytes: [UInt8], pieces sizes: [Int]) -> (result: UTF8FeedResult, pieceStarts: [Int]) {
    var validator = UTF8Validator()
    var failedPiece: Int?
    var starts: [Int] = []
    bytes.withUnsafeBytes { raw in
        var start = 0
        var piece = 0
        repeat {
            let size = piece < sizes.count ? sizes[piece] : raw.count - start
            let end = min(raw.count, start + size)
            starts.append(start)
            if !validator.validate(UnsafeRawBufferPointer(rebasing: raw[start..<end])), failedPiece == nil {
                failedPiece = piece
            }
            start = end
            piece += 1
        } while start < raw.count
    }
    return (UTF8FeedResult(failedPiece: failedPiece, isComplete: validator.isComplete), starts)
}

/// The result a correct validator gives for `verdict` when the pieces start at `pieceStarts`.
func expectedResult(for verdict: UTF8Verdict, pieceStarts: [Int]) -> UTF8FeedResult {
    switch verdict {
    case .valid: return UTF8FeedResult(failedPiece: nil, isComplete: true)
    case .incomplete: return UTF8FeedResult(failedPiece: nil, isComplete: false)
    case .invalid(let index):
        let piece = pieceStarts.lastIndex { $0 <= index }!
        return UTF8FeedResult(failedPiece: piece, isComplete: false)
    }
}

/// Random piece sizes that add up to `count`.
func randomPieces(count: Int, using generator: inout SplitMix64) -> [Int] {
    var sizes: [Int] = []
    var left = count
    while left > 0 {
        let size = Int.random(in: 1...max(1, min(left, 20)), using: &generator)
        sizes.append(size)
        left -= size
    }
    return sizes
}

/// The verdict derived from the standard library's UTF-8 parser.
///
/// The parser reports each ill-formed stretch as its maximal subpart (Unicode §3.9): nothing but a bad first byte
/// when that byte cannot start a character, otherwise the longest prefix of a well-formed sequence, so the first
/// offending byte is the one right after it — unless the input ends there first, which leaves it incomplete.
func standardLibraryVerdict(_ bytes: [UInt8]) -> UTF8Verdict {
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var position = 0
    while true {
        switch parser.parseScalar(from: &iterator) {
        case .valid(let encoded):
            position += encoded.count
        case .emptyInput:
            return .valid
        case .error(let length):
            guard (0xC2...0xF4).contains(bytes[position]) else { return .invalid(at: position) }
            return position + length == bytes.count ? .incomplete : .invalid(at: position + length)
        }
    }
}

private let vectors: [UTF8Vector] = [
    // Valid: boundaries of each sequence length and of the ranges RFC 3629 excludes.
    UTF8Vector("empty", [], .valid),
    UTF8Vector("ASCII text", Array("Hello, world".utf8), .valid),
    UTF8Vector("U+0000", [0x00], .valid),
    UTF8Vector("U+007F", [0x7F], .valid),
    UTF8Vector("U+0080", [0xC2, 0x80], .valid),
    UTF8Vector("U+07FF", [0xDF, 0xBF], .valid),
    UTF8Vector("U+0800", [0xE0, 0xA0, 0x80], .valid),
    UTF8Vector("U+D7FF", [0xED, 0x9F, 0xBF], .valid),
    UTF8Vector("U+E000", [0xEE, 0x80, 0x80], .valid),
    UTF8Vector("U+FFFD", [0xEF, 0xBF, 0xBD], .valid),
    UTF8Vector("U+FFFE noncharacter", [0xEF, 0xBF, 0xBE], .valid),
    UTF8Vector("U+FFFF", [0xEF, 0xBF, 0xBF], .valid),
    UTF8Vector("U+10000", [0xF0, 0x90, 0x80, 0x80], .valid),
    UTF8Vector("U+10FFFF", [0xF4, 0x8F, 0xBF, 0xBF], .valid),
    UTF8Vector("Greek kosme", [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5], .valid),
    UTF8Vector("mixed text", Array("Hello-µ@ßöäüàá-UTF-8!! 日本語 🎉 done".utf8), .valid),

    // Incomplete: valid prefixes cut inside a character.
    UTF8Vector("C2 alone", [0xC2], .incomplete),
    UTF8Vector("DF alone", [0xDF], .incomplete),
    UTF8Vector("E0 alone", [0xE0], .incomplete),
    UTF8Vector("E0 A0", [0xE0, 0xA0], .incomplete),
    UTF8Vector("E1 80", [0xE1, 0x80], .incomplete),
    UTF8Vector("ED alone", [0xED], .incomplete),
    UTF8Vector("ED 9F", [0xED, 0x9F], .incomplete),
    UTF8Vector("EF BF", [0xEF, 0xBF], .incomplete),
    UTF8Vector("F0 alone", [0xF0], .incomplete),
    UTF8Vector("F0 90", [0xF0, 0x90], .incomplete),
    UTF8Vector("F0 90 80", [0xF0, 0x90, 0x80], .incomplete),
    UTF8Vector("F1 80 80", [0xF1, 0x80, 0x80], .incomplete),
    UTF8Vector("F4 alone", [0xF4], .incomplete),
    UTF8Vector("F4 8F BF", [0xF4, 0x8F, 0xBF], .incomplete),
    UTF8Vector("kosme cut in a character", [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE], .incomplete),

    // Invalid: overlong encodings.
    UTF8Vector("overlong C0 80", [0xC0, 0x80], .invalid(at: 0)),
    UTF8Vector("overlong C1 BF", [0xC1, 0xBF], .invalid(at: 0)),
    UTF8Vector("overlong C0 alone", [0xC0], .invalid(at: 0)),
    UTF8Vector("overlong E0 80 80", [0xE0, 0x80, 0x80], .invalid(at: 1)),
    UTF8Vector("overlong E0 9F BF", [0xE0, 0x9F, 0xBF], .invalid(at: 1)),
    UTF8Vector("overlong E0 80 prefix", [0xE0, 0x80], .invalid(at: 1)),
    UTF8Vector("overlong F0 80 80 80", [0xF0, 0x80, 0x80, 0x80], .invalid(at: 1)),
    UTF8Vector("overlong F0 8F BF BF", [0xF0, 0x8F, 0xBF, 0xBF], .invalid(at: 1)),
    UTF8Vector("overlong F8 88 80 80 80", [0xF8, 0x88, 0x80, 0x80, 0x80], .invalid(at: 0)),
    UTF8Vector("overlong FC 84 80 80 80 80", [0xFC, 0x84, 0x80, 0x80, 0x80, 0x80], .invalid(at: 0)),

    // Invalid: UTF-16 surrogates.
    UTF8Vector("surrogate ED A0 80", [0xED, 0xA0, 0x80], .invalid(at: 1)),
    UTF8Vector("surrogate ED AD BF", [0xED, 0xAD, 0xBF], .invalid(at: 1)),
    UTF8Vector("surrogate ED AE 80", [0xED, 0xAE, 0x80], .invalid(at: 1)),
    UTF8Vector("surrogate ED B0 80", [0xED, 0xB0, 0x80], .invalid(at: 1)),
    UTF8Vector("surrogate ED BF BF", [0xED, 0xBF, 0xBF], .invalid(at: 1)),
    UTF8Vector("surrogate prefix ED A0", [0xED, 0xA0], .invalid(at: 1)),
    UTF8Vector("surrogate pair", [0xED, 0xA0, 0x80, 0xED, 0xB0, 0x80], .invalid(at: 1)),
    UTF8Vector(
        "kosme then a surrogate then edited",
        [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80]
            + Array("edited".utf8),
        .invalid(at: 12)
    ),

    // Invalid: beyond U+10FFFF and bytes that never occur.
    UTF8Vector("above U+10FFFF F4 90 80 80", [0xF4, 0x90, 0x80, 0x80], .invalid(at: 1)),
    UTF8Vector("above U+10FFFF prefix F4 90", [0xF4, 0x90], .invalid(at: 1)),
    UTF8Vector("F5 80 80 80", [0xF5, 0x80, 0x80, 0x80], .invalid(at: 0)),
    UTF8Vector("F7 BF BF BF", [0xF7, 0xBF, 0xBF, 0xBF], .invalid(at: 0)),
    UTF8Vector("FE", [0xFE], .invalid(at: 0)),
    UTF8Vector("FF", [0xFF], .invalid(at: 0)),

    // Invalid: continuation bytes where none is expected, and lead bytes cut short.
    UTF8Vector("lone 80", [0x80], .invalid(at: 0)),
    UTF8Vector("lone BF", [0xBF], .invalid(at: 0)),
    UTF8Vector("ASCII then 80", [0x41, 0x80], .invalid(at: 1)),
    UTF8Vector("character then extra continuation", [0xCE, 0xBA, 0x80], .invalid(at: 2)),
    UTF8Vector("four-byte character then extra continuation", [0xF0, 0x9F, 0x8E, 0x89, 0xBF], .invalid(at: 4)),
    UTF8Vector("C2 then ASCII", [0xC2, 0x41], .invalid(at: 1)),
    UTF8Vector("C2 then C2", [0xC2, 0xC2], .invalid(at: 1)),
    UTF8Vector("E1 80 then ASCII", [0xE1, 0x80, 0x41], .invalid(at: 2)),
    UTF8Vector("F1 80 80 then ASCII", [0xF1, 0x80, 0x80, 0x41], .invalid(at: 3)),
    UTF8Vector("truncated then valid", [0xE1, 0x80, 0xCE, 0xBA], .invalid(at: 2)),
]

/// Bytes that can never appear in UTF-8.
private let neverValidBytes: [UInt8] = [0xC0, 0xC1] + Array(0xF5...0xFF)

/// Runs `vector` whole, byte by byte and in seeded random pieces, each also behind ASCII of several lengths.
private func checkAllFeedings(_ vector: UTF8Vector) {
    var generator = SplitMix64(seed: UInt64(truncatingIfNeeded: vector.bytes.count &* 7919 &+ 1))
    for asciiCount in [0, 1, 7, 15, 16, 37] {
        let vector = vector.prefixed(byASCII: asciiCount)
        var feedings: [(String, [Int])] = [
            ("whole", [vector.bytes.count]),
            ("byte by byte", Array(repeating: 1, count: vector.bytes.count)),
        ]
        for round in 0..<8 {
            feedings.append(("random pieces \(round)", randomPieces(count: vector.bytes.count, using: &generator)))
        }
        for (feeding, sizes) in feedings {
            let (result, starts) = feed(vector.bytes, pieces: sizes)
            #expect(
                result == expectedResult(for: vector.verdict, pieceStarts: starts),
                "\(vector.name), \(asciiCount) ASCII first, \(feeding) \(sizes)"
            )
        }
    }
}

@Suite struct UTF8ValidatorTests {
    @Test(arguments: vectors)
    func validatorGivesTheExpectedVerdictHoweverTheBytesArrive(vector: UTF8Vector) {
        checkAllFeedings(vector)
    }

    @Test(arguments: vectors)
    func referenceVerdictAgreesWithTheVectors(vector: UTF8Vector) {
        #expect(standardLibraryVerdict(vector.bytes) == vector.verdict)
    }

    @Test(arguments: neverValidBytes)
    func validatorRejectsBytesThatNeverOccurInUTF8(byte: UInt8) {
        checkAllFeedings(UTF8Vector(String(byte, radix: 16), [byte], .invalid(at: 0)))
        checkAllFeedings(UTF8Vector(String(byte, radix: 16) + " after text", [0x61, 0x62, byte], .invalid(at: 2)))
    }

    @Test(arguments: [0x80, 0x9F, 0xA0, 0xBF] as [UInt8])
    func validatorRejectsLoneContinuationBytes(byte: UInt8) {
        checkAllFeedings(UTF8Vector(String(byte, radix: 16), [byte], .invalid(at: 0)))
    }

    @Test func failureIsStickyUntilReset() {
        var validator = UTF8Validator()
        #expect(!([0xC0] as [UInt8]).withUnsafeBytes { validator.validate($0) })
        #expect(!Array("fine".utf8).withUnsafeBytes { validator.validate($0) })
        #expect(![UInt8]().withUnsafeBytes { validator.validate($0) })
        #expect(!validator.isComplete)
        validator.reset()
        #expect(Array("fine".utf8).withUnsafeBytes { validator.validate($0) })
        #expect(validator.isComplete)
    }

    @Test func resetForgetsAPartialCharacter() {
        var validator = UTF8Validator()
        #expect(([0xE2, 0x82] as [UInt8]).withUnsafeBytes { validator.validate($0) })
        #expect(!validator.isComplete)
        validator.reset()
        #expect(validator.isComplete)
        #expect(Array("ok".utf8).withUnsafeBytes { validator.validate($0) })
        #expect(validator.isComplete)
    }

    @Test func longTextValidatesAcrossFastPathBoundaries() {
        let text = Array(String(repeating: "The quick brown fox — 快速的棕色狐狸 🦊 jumps. ", count: 200).utf8)
        var generator = SplitMix64(seed: 0xF0C5)
        for _ in 0..<20 {
            let (result, _) = feed(text, pieces: randomPieces(count: text.count, using: &generator))
            #expect(result == UTF8FeedResult(failedPiece: nil, isComplete: true))
        }
        var broken = text
        broken[broken.count - 3] = 0xFF
        let (result, starts) = feed(broken, pieces: [broken.count])
        #expect(result == expectedResult(for: .invalid(at: broken.count - 3), pieceStarts: starts))
    }

    @Test(arguments: 0..<8)
    func validatorAgreesWithTheStandardLibraryOnRandomBytes(round: UInt64) {
        var generator = SplitMix64(seed: 0x5EED_0000 + round)
        for caseIndex in 0..<1000 {
            let bytes = randomUTF8LikeBytes(using: &generator)
            let expected = standardLibraryVerdict(bytes)
            #expect((expected == .valid) == (String(validating: bytes, as: UTF8.self) != nil))
            let pieces = caseIndex % 3 == 0 ? [bytes.count] : randomPieces(count: bytes.count, using: &generator)
            let (result, starts) = feed(bytes, pieces: pieces)
            #expect(
                result == expectedResult(for: expected, pieceStarts: starts),
                "round \(round), case \(caseIndex): \(bytes.map { String($0, radix: 16) }), pieces \(pieces)"
            )
        }
    }
}

/// Random bytes biased toward the shapes that matter: ASCII runs, well-formed characters of every length,
/// boundary lead and continuation bytes, truncated sequences and the odd arbitrary byte.
private func randomUTF8LikeBytes(using generator: inout SplitMix64) -> [UInt8] {
    let interestingBytes: [UInt8] = [
        0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF,
        0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
    ]
    var bytes: [UInt8] = []
    let parts = Int.random(in: 0...12, using: &generator)
    for _ in 0..<parts {
        switch Int.random(in: 0..<10, using: &generator) {
        case 0, 1:
            let run = Int.random(in: 0...24, using: &generator)
            bytes += (0..<run).map { _ in UInt8.random(in: 0x20...0x7E, using: &generator) }
        case 2, 3, 4:
            bytes += encodedRandomScalar(using: &generator)
        case 5:
            let encoded = encodedRandomScalar(using: &generator)
            bytes += encoded.prefix(Int.random(in: 0...encoded.count, using: &generator))
        case 6, 7:
            bytes.append(interestingBytes.randomElement(using: &generator)!)
        case 8:
            bytes.append(UInt8.random(in: 0x80...0xBF, using: &generator))
        default:
            bytes.append(UInt8.random(in: .min ... .max, using: &generator))
        }
    }
    return bytes
}

/// The UTF-8 encoding of a random scalar, spread evenly over the one- to four-byte lengths.
private func encodedRandomScalar(using generator: inout SplitMix64) -> [UInt8] {
    let ranges: [ClosedRange<UInt32>] = [0...0x7F, 0x80...0x7FF, 0x800...0xFFFF, 0x1_0000...0x10_FFFF]
    while true {
        let value = UInt32.random(in: ranges.randomElement(using: &generator)!, using: &generator)
        if let scalar = Unicode.Scalar(value) {
            return Array(String(Character(scalar)).utf8)
        }
    }
}

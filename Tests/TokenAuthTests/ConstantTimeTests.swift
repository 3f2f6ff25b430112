import Testing

@testable import TokenAuth

@Suite struct ConstantTimeTests {
    @Test func equalBytesCompareEqual() {
        #expect(ConstantTime.equals([], []))
        #expect(ConstantTime.equals([0], [0]))
        #expect(ConstantTime.equals(Array(0...255), Array(0...255)))
    }

    @Test func aDifferenceAtAnyPositionIsFound() {
        let base = [UInt8](repeating: 0x5A, count: 32)
        for index in base.indices {
            for bit in 0..<8 {
                var changed = base
                changed[index] ^= 1 << UInt8(bit)
                #expect(!ConstantTime.equals(changed, base))
                #expect(!ConstantTime.equals(base, changed))
            }
        }
    }

    @Test func differentLengthsCompareUnequalEvenWithACommonPrefix() {
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(!ConstantTime.equals([1, 2], [1, 2, 3]))
        #expect(!ConstantTime.equals([], [0]))
        #expect(!ConstantTime.equals([0], []))
        #expect(!ConstantTime.equals([0, 0], [0]))
    }
}

/// SHA-1 (RFC 3174), used only to compute `Sec-WebSocket-Accept` (RFC 6455 §4.2.2).
public enum SHA1 {
    /// The 20-byte digest of `bytes`.
    ///
    /// Whole 64-byte blocks are compressed straight from `bytes`; only the padded tail is copied, into a stack
    /// buffer, so the digest itself is the one allocation.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var state = State()
        let fullBlocks = bytes.count / 64
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { schedule in
            if let base = bytes.baseAddress {
                for block in 0..<fullBlocks {
                    state.compress(base + block * 64, schedule: schedule)
                }
            }
            // The tail: leftover bytes, 0x80, zeros, then the bit length, in one or two blocks.
            withUnsafeTemporaryAllocation(byteCount: 128, alignment: 8) { tail in
                let rest = bytes.count - fullBlocks * 64
                tail.initializeMemory(as: UInt8.self, repeating: 0)
                if rest > 0 {
                    tail.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[(fullBlocks * 64)...]))
                }
                tail[rest] = 0x80
                let tailCount = rest < 56 ? 64 : 128
                let bitLength = UInt64(truncatingIfNeeded: bytes.count) &* 8
                tail.storeBytes(of: bitLength.bigEndian, toByteOffset: tailCount - 8, as: UInt64.self)
                let tailBase = UnsafeRawPointer(tail.baseAddress!)
                for offset in stride(from: 0, to: tailCount, by: 64) {
                    state.compress(tailBase + offset, schedule: schedule)
                }
            }
        }
        return [UInt8](unsafeUninitializedCapacity: 20) { digest, initializedCount in
            let raw = UnsafeMutableRawBufferPointer(digest)
            for (index, word) in [state.h0, state.h1, state.h2, state.h3, state.h4].enumerated() {
                raw.storeBytes(of: word.bigEndian, toByteOffset: index * 4, as: UInt32.self)
            }
            initializedCount = 20
        }
    }

    /// The five chaining words.
    private struct State {
        var h0: UInt32 = 0x6745_2301
        var h1: UInt32 = 0xEFCD_AB89
        var h2: UInt32 = 0x98BA_DCFE
        var h3: UInt32 = 0x1032_5476
        var h4: UInt32 = 0xC3D2_E1F0

        /// Folds one 64-byte block into the state, using `schedule` (80 words) as scratch space.
        mutating func compress(_ block: UnsafeRawPointer, schedule w: UnsafeMutableBufferPointer<UInt32>) {
            for i in 0..<16 {
                w[i] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
            }
            for i in 16..<80 {
                w[i] = rotateLeft(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], by: 1)
            }
            var a = self.h0
            var b = self.h1
            var c = self.h2
            var d = self.h3
            var e = self.h4
            @inline(__always)
            func round(_ f: UInt32, _ k: UInt32, _ word: UInt32) {
                let temp = rotateLeft(a, by: 5) &+ f &+ e &+ k &+ word
                e = d
                d = c
                c = rotateLeft(b, by: 30)
                b = a
                a = temp
            }
            for i in 0..<20 { round((b & c) | (~b & d), 0x5A82_7999, w[i]) }
            for i in 20..<40 { round(b ^ c ^ d, 0x6ED9_EBA1, w[i]) }
            for i in 40..<60 { round((b & c) | (b & d) | (c & d), 0x8F1B_BCDC, w[i]) }
            for i in 60..<80 { round(b ^ c ^ d, 0xCA62_C1D6, w[i]) }
            self.h0 &+= a
            self.h1 &+= b
            self.h2 &+= c
            self.h3 &+= d
            self.h4 &+= e
        }
    }
}

@inline(__always)
private func rotateLeft(_ value: UInt32, by count: UInt32) -> UInt32 {
    value &<< count | value &>> (32 &- count)
}

import TestSupport
import WebSocketCore
import WebSocketDeflate

/// A deflater with zlib's default memory level.
func makeDeflater(windowBits: Int = 15, level: Int = 6, resets: Bool = false) -> PerMessageDeflater {
    PerMessageDeflater(windowBits: windowBits, compressionLevel: level, memoryLevel: 8, resetsAfterEachMessage: resets)
}

/// Compresses one message and returns the payload.
func compress(_ message: [UInt8], with deflater: PerMessageDeflater) -> [UInt8] {
    var output: [UInt8] = []
    message.withUnsafeBytes { deflater.deflate($0, into: &output) }
    return output
}

/// Inflates one fragment into `output`, returning the failure if any.
func inflateFragment(
    _ fragment: [UInt8],
    isFinal: Bool,
    with inflater: PerMessageInflater,
    into output: inout [UInt8],
    limit: Int
) -> InflateFailure? {
    let result = fragment.withUnsafeBytes { bytes in
        Result { () throws(InflateFailure) in
            try inflater.inflate(bytes, isFinal: isFinal, into: &output, limit: limit)
        }
    }
    if case .failure(let failure) = result {
        return failure
    }
    return nil
}

/// Inflates one message given as fragments; the last fragment is final. No fragments means one empty fragment.
func decompress(
    _ fragments: [[UInt8]],
    with inflater: PerMessageInflater,
    limit: Int = 64 << 20
) -> Result<[UInt8], InflateFailure> {
    let fragments = fragments.isEmpty ? [[]] : fragments
    var output: [UInt8] = []
    for (index, fragment) in fragments.enumerated() {
        let isFinal = index == fragments.count - 1
        if let failure = inflateFragment(fragment, isFinal: isFinal, with: inflater, into: &output, limit: limit) {
            return .failure(failure)
        }
    }
    return .success(output)
}

/// Splits `bytes` into fragments of random lengths (some empty).
func randomSplit(_ bytes: [UInt8], using generator: inout SplitMix64) -> [[UInt8]] {
    var fragments: [[UInt8]] = []
    var index = 0
    while index < bytes.count {
        let length = Int.random(in: 0...min(bytes.count - index, 7), using: &generator)
        fragments.append(Array(bytes[index..<(index + length)]))
        index += length
    }
    fragments.append([])
    return fragments
}

/// Text that compresses like chat or JSON traffic.
func sampleText(count: Int, seed: UInt64) -> [UInt8] {
    var generator = SplitMix64(seed: seed)
    let words = ["{\"user\":", "\"alice\"", ",\"text\":", "\"hello\"", "world", " ", "rollcall", "}", "42", "\n"]
    var bytes: [UInt8] = []
    while bytes.count < count {
        bytes += Array(words.randomElement(using: &generator)!.utf8)
    }
    return Array(bytes.prefix(count))
}

/// Random bytes, which do not compress.
func randomBytes(count: Int, seed: UInt64) -> [UInt8] {
    var generator = SplitMix64(seed: seed)
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
}

import WebSocketCore
import WebSocketDeflate

/// Fuzzes permessage-deflate inflation with a real zlib-backed `PerMessageInflater`.
///
/// Input: byte 0 picks the mode, byte 1 the options (bits 0-2: client window bits 8...15, bit 3: the client resets
/// its context after each message, bits 4-7: the read size for frames, in 16-byte steps); the rest is
///   - even mode: masked client frames, read by `WebSocketInboundProcessor` with the inflater;
///   - odd mode: raw deflate fragments given to the inflater directly, each as a control byte (bits 0-5: length,
///     bit 6: final fragment of the message) followed by its bytes.
/// Invariant: the inflated output never exceeds the limit (256 KiB), whether inflation succeeds or fails.

private let limit = 256 * 1024
private let limits = WebSocketInboundProcessor.Limits(
    maximumFrameSize: 64 * 1024,
    maximumMessageSize: limit,
    maximumFragmentsPerMessage: 64
)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let options = data[1]
    let inflater = PerMessageInflater(windowBits: 8 + Int(options & 7), resetsAfterEachMessage: options & 8 != 0)
    let input = UnsafeBufferPointer(start: data + 2, count: size - 2)
    if data[0] & 1 == 0 {
        readFrames(input, readSize: (Int(options >> 4) + 1) * 16, inflater: inflater)
    } else {
        inflateFragments(input, inflater: inflater)
    }
    return 0
}

private func readFrames(_ input: UnsafeBufferPointer<UInt8>, readSize: Int, inflater: PerMessageInflater) {
    var processor = WebSocketInboundProcessor(limits: limits, inflater: inflater)
    var pending: [UInt8] = []
    var offset = 0
    var finished = false
    while offset < input.count && !finished {
        let end = min(input.count, offset + readSize)
        pending.append(contentsOf: input[offset..<end])
        offset = end
        let buffered = pending.count
        var sawEnd = false
        let progress = pending.withUnsafeMutableBytes { buffer in
            processor.process(buffer) { event in
                precondition(!sawEnd, "an event after a close or violation")
                switch event {
                case .text(let bytes):
                    precondition(bytes.count <= limit, "a message above the limit")
                    precondition(String(validating: bytes, as: UTF8.self) != nil, "delivered text is not UTF-8")
                case .binary(let bytes):
                    precondition(bytes.count <= limit, "a message above the limit")
                case .ping, .pong:
                    break
                case .close, .violation:
                    sawEnd = true
                }
            }
        }
        precondition(progress.consumed <= buffered, "consumed more than was buffered")
        precondition(progress.isFinished == sawEnd)
        pending.removeFirst(progress.consumed)
        finished = progress.isFinished
    }
}

private func inflateFragments(_ input: UnsafeBufferPointer<UInt8>, inflater: PerMessageInflater) {
    var output: [UInt8] = []
    var offset = 0
    while offset < input.count {
        let control = input[offset]
        let start = offset + 1
        let end = min(input.count, start + Int(control & 0x3F))
        offset = end
        let isFinal = control & 0x40 != 0 || end == input.count
        let fragment = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(input)[start..<end])
        do {
            try inflater.inflate(fragment, isFinal: isFinal, into: &output, limit: limit)
            precondition(output.count <= limit, "inflated past the limit")
        } catch {
            precondition(output.count <= limit, "inflated past the limit before failing")
            // The connection would close here; the message is dropped and a new one may start.
            output.removeAll(keepingCapacity: true)
            continue
        }
        if isFinal {
            output.removeAll(keepingCapacity: true)
        }
    }
}

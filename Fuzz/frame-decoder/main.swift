import WebSocketCore

/// Fuzzes `WebSocketInboundProcessor` without compression, fed in reads the way a connection feeds it: unconsumed
/// bytes stay at the front of the buffer and new bytes are appended behind them.
///
/// Input: byte 0 sets the read size (1...256 bytes); the rest is what the client sent.
/// Invariants: consumed never exceeds the buffered bytes; no event after a close or violation; a delivered text
/// message is valid UTF-8 (checked with the standard library's decoder); no message or frame passes the limits.

private let limits = WebSocketInboundProcessor.Limits(
    maximumFrameSize: 64 * 1024,
    maximumMessageSize: 64 * 1024,
    maximumFragmentsPerMessage: 64
)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let readSize = Int(data[0]) + 1
    let input = UnsafeBufferPointer(start: data + 1, count: size - 1)
    var processor = WebSocketInboundProcessor(limits: limits)
    var pending: [UInt8] = []
    var finished = false
    var offset = 0
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
                    precondition(bytes.count <= limits.maximumMessageSize)
                    precondition(String(validating: bytes, as: UTF8.self) != nil, "delivered text is not UTF-8")
                case .binary(let bytes):
                    precondition(bytes.count <= limits.maximumMessageSize)
                case .ping(let bytes), .pong(let bytes):
                    precondition(bytes.count <= 125)
                case .close(let code, let reason):
                    sawEnd = true
                    precondition(code == nil ? reason.isEmpty : reason.count <= 123)
                    precondition(String(validating: reason, as: UTF8.self) != nil, "close reason is not UTF-8")
                case .violation:
                    sawEnd = true
                }
            }
        }
        precondition(progress.consumed >= 0 && progress.consumed <= buffered, "consumed more than was buffered")
        precondition(progress.isFinished == sawEnd, "finished without a close or violation, or the reverse")
        if let next = progress.nextFrameSize {
            precondition(next > buffered - progress.consumed, "asked for a frame that is already buffered")
            precondition(next <= limits.maximumFrameSize + 14, "waits for a frame above the limit")
        }
        pending.removeFirst(progress.consumed)
        finished = progress.isFinished
    }
    // Once finished, the processor takes no more bytes and reports nothing more.
    if finished {
        var more: [UInt8] = [0x89, 0x80, 0, 0, 0, 0]
        let progress = more.withUnsafeMutableBytes { buffer in
            processor.process(buffer) { _ in preconditionFailure("an event after the processor finished") }
        }
        precondition(progress.isFinished && progress.consumed == 0)
    }
    return 0
}

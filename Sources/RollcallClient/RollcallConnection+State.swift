// The Linux transport: EventIO's sockets and OpenSSL; Apple platforms supply a RollcallTransport of their own.
#if canImport(EventIO)

extension RollcallConnection {
    /// A close asked for with `close(code:reason:)`.
    struct CloseRequest: Hashable {
        var code: UInt16
        var reason: String
    }

    /// Where the connection stands, as the threads that send and close see it (under the lock): one value, so a
    /// close asked for, the compression agreed and the end cannot contradict each other.
    enum State: Hashable {
        /// `open()` has not completed; a close asked for meanwhile waits for the upgrade.
        case connecting(closeRequested: CloseRequest?)
        /// Upgraded: messages may be queued.
        case open(compressed: Bool)
        /// A close was asked for: nothing more is queued, and the I/O thread starts the close handshake.
        case closing(CloseRequest, compressed: Bool)
        /// `run` returned, or `open()` failed: the socket is closed.
        case finished(compressed: Bool)

        /// Whether `send(text:)` may queue a message.
        var acceptsMessages: Bool {
            if case .open = self { return true }
            return false
        }

        /// Whether the upgrade completed and the connection has not ended (a close asked for still runs).
        var isConnected: Bool {
            switch self {
            case .open, .closing: return true
            case .connecting, .finished: return false
            }
        }

        /// Whether the server agreed to permessage-deflate (kept after the end).
        var isCompressionNegotiated: Bool {
            switch self {
            case .connecting: return false
            case .open(let compressed), .closing(_, let compressed), .finished(let compressed): return compressed
            }
        }

        /// The close asked for, if any.
        var closeRequest: CloseRequest? {
            switch self {
            case .connecting(let request): return request
            case .closing(let request, _): return request
            case .open, .finished: return nil
            }
        }

        /// `close(code:reason:)`: the first request counts.
        mutating func requestClose(_ request: CloseRequest) {
            switch self {
            case .connecting(nil): self = .connecting(closeRequested: request)
            case .open(let compressed): self = .closing(request, compressed: compressed)
            case .connecting, .closing, .finished: break
            }
        }

        /// The upgrade completed; a close asked for meanwhile goes ahead.
        mutating func opened(compressed: Bool) {
            switch self {
            case .connecting(nil): self = .open(compressed: compressed)
            case .connecting(let request?): self = .closing(request, compressed: compressed)
            case .open, .closing, .finished: break
            }
        }

        /// The socket closed.
        mutating func finish() {
            self = .finished(compressed: self.isCompressionNegotiated)
        }
    }

    /// The frames queued for the I/O thread, bounded in bytes.
    struct SendQueue {
        private(set) var frames: [[UInt8]] = []
        private(set) var bytes = 0

        /// Queues a frame; false when it would take the queue over `limit` bytes.
        mutating func append(_ frame: [UInt8], limit: Int) -> Bool {
            guard self.bytes + frame.count <= limit else { return false }
            self.frames.append(frame)
            self.bytes += frame.count
            return true
        }

        /// Every frame queued, in order; the queue is empty after.
        mutating func takeAll() -> [[UInt8]] {
            defer { self = SendQueue() }
            return self.frames
        }
    }
}

#endif

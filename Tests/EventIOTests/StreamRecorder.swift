import ClusterTesting
import EventIO
import Foundation

/// A `StreamConnection` delegate for tests: it uses whole lines only (up to and including `\n`), leaving a partial
/// line to the connection, and records what it saw, for the test's thread to read.
final class StreamRecorder: StreamConnectionDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var openCount = 0
    private var receivedLines: [String] = []
    private var handedBytes: [Int] = []
    private var endingsSeen: [StreamConnectionEnding] = []
    /// Whether it uses nothing at all (to fill the connection's buffer).
    let usesNothing: Bool
    /// Where the ending is told too, as text, for a test that keeps no reference to the recorder.
    let endings: ResultBox<String>?

    /// - Parameters:
    ///   - usesNothing: leave every byte to the connection.
    ///   - endings: where to tell the ending too.
    init(usesNothing: Bool = false, endings: ResultBox<String>? = nil) {
        self.usesNothing = usesNothing
        self.endings = endings
    }

    /// How many times the connection reported itself open.
    var opened: Int { self.lock.withLock { self.openCount } }
    /// The whole lines received, without their `\n`.
    var lines: [String] { self.lock.withLock { self.receivedLines } }
    /// The size of each buffer handed over.
    var handed: [Int] { self.lock.withLock { self.handedBytes } }
    /// The endings reported (at most one is expected).
    var ended: [StreamConnectionEnding] { self.lock.withLock { self.endingsSeen } }

    func streamConnectionDidOpen(_ connection: StreamConnection) {
        self.lock.withLock { self.openCount += 1 }
    }

    func streamConnection(_ connection: StreamConnection, didReceive bytes: UnsafeMutableRawBufferPointer) -> Int {
        self.lock.withLock { self.handedBytes.append(bytes.count) }
        guard !self.usesNothing else { return 0 }
        var used = 0
        while let end = bytes[used...].firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[used..<end]), as: UTF8.self)
            self.lock.withLock { self.receivedLines.append(line) }
            used = end + 1
        }
        return used
    }

    func streamConnection(_ connection: StreamConnection, didEndWith ending: StreamConnectionEnding) {
        self.lock.withLock { self.endingsSeen.append(ending) }
        self.endings?.put(ending.description)
    }
}

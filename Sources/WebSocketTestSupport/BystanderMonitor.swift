import Foundation
import Glibc
import Testing

/// Keeps a bystander doing round trips on its own thread while an attack runs, and records how many succeeded,
/// how many failed and the slowest, so a test can check the bystander was served within a bound throughout.
public final class BystanderMonitor: @unchecked Sendable {
    /// What the bystander saw.
    public struct Summary {
        /// Round trips made.
        public var rounds = 0
        /// Round trips whose answer was missing or wrong.
        public var failures = 0
        /// The slowest round trip, in seconds.
        public var slowest: Double = 0
    }

    /// The generous bound on one bystander round trip while an attack runs, in seconds.
    public static let bound: Double = 1.0

    private let lock = NSLock()
    private var summary = Summary()
    private var isRunning = true
    private let finished = DispatchSemaphore(value: 0)

    /// Starts round trips at most every `pause` seconds (well under the default message rate limit).
    ///
    /// - Parameter roundTrip: one round trip; true when the answer came back as expected.
    public init(pause: Double = 0.02, roundTrip: @escaping () -> Bool) {
        let work = UncheckedSendable(roundTrip)
        Thread.detachNewThread { [self] in
            // At least one round, however short the attack.
            repeat {
                let started = Date()
                let served = work.value()
                let elapsed = Date().timeIntervalSince(started)
                self.lock.withLock {
                    self.summary.rounds += 1
                    if !served { self.summary.failures += 1 }
                    self.summary.slowest = max(self.summary.slowest, elapsed)
                }
                usleep(UInt32(pause * 1_000_000))
            } while self.lock.withLock({ self.isRunning })
            self.finished.signal()
        }
    }

    /// Stops the round trips and returns what they saw.
    public func stop() -> Summary {
        self.lock.withLock { self.isRunning = false }
        _ = self.finished.wait(timeout: .now() + 10)
        return self.lock.withLock { self.summary }
    }

    /// Stops, and checks that the bystander got answers, every one of them, each within `bound`.
    public func expectServed(sourceLocation: SourceLocation = #_sourceLocation) {
        let summary = self.stop()
        #expect(summary.rounds > 0, "the bystander made no round trip", sourceLocation: sourceLocation)
        #expect(
            summary.failures == 0, "\(summary.failures) of \(summary.rounds) bystander round trips failed",
            sourceLocation: sourceLocation)
        #expect(
            summary.slowest < Self.bound, "the slowest bystander round trip took \(summary.slowest) s",
            sourceLocation: sourceLocation)
    }
}

/// Carries a value into a thread that is the only one to use it afterwards.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Resident memory of this process, in bytes (from /proc/self/statm).
public func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

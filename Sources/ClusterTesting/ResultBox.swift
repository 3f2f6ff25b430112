import Dispatch
import Foundation

/// One value handed from one thread to another, waited for with a deadline.
public final class ResultBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private let semaphore = DispatchSemaphore(value: 0)
    private var value: T?

    /// An empty box.
    public init() {}

    /// Hands the value over and wakes the waiter.
    ///
    /// - Parameter value: the value.
    public func put(_ value: T) {
        self.lock.withLock { self.value = value }
        self.semaphore.signal()
    }

    /// The value if it came already, without waiting.
    public func peek() -> T? {
        self.lock.withLock { self.value }
    }

    /// The value, or nil when none came within `seconds`.
    ///
    /// - Parameter seconds: how long to wait.
    public func wait(seconds: Double) -> T? {
        guard self.semaphore.wait(timeout: .now() + seconds) == .success else { return nil }
        return self.lock.withLock { self.value }
    }
}

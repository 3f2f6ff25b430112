import Foundation

/// Hands values to any number of callbacks and `AsyncStream`s; safe from any thread.
final class Broadcaster<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
    private var handlers: [@Sendable (Element) -> Void] = []
    private var nextKey = 0
    private var isFinished = false

    /// A new stream of every value published from now on; it finishes with the broadcaster.
    func stream(bufferingNewest limit: Int = 4096) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(limit))
        let key: Int? = self.lock.withLock {
            guard !self.isFinished else { return nil }
            self.nextKey += 1
            self.continuations[self.nextKey] = continuation
            return self.nextKey
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.continuations.removeValue(forKey: key) }
        }
        return stream
    }

    /// Adds a callback for every value published from now on.
    func add(_ handler: @escaping @Sendable (Element) -> Void) {
        self.lock.withLock { self.handlers.append(handler) }
    }

    /// Publishes a value (callers call this on one thread, so order is kept).
    func publish(_ value: Element) {
        let (continuations, handlers) = self.lock.withLock { (Array(self.continuations.values), self.handlers) }
        for handler in handlers { handler(value) }
        for continuation in continuations { continuation.yield(value) }
    }

    /// Finishes every stream; later streams finish at once.
    func finish() {
        let continuations = self.lock.withLock {
            self.isFinished = true
            let all = Array(self.continuations.values)
            self.continuations = [:]
            return all
        }
        for continuation in continuations { continuation.finish() }
    }
}

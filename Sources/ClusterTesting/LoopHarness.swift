import Dispatch
import EventIO
import Foundation

/// An `EventLoop` running on its own thread for one test, with a way to run code on it and wait.
public final class LoopHarness: @unchecked Sendable {
    /// The loop.
    public let loop: EventLoop
    private let thread: EventLoopThread
    private var isShutDown = false

    /// Starts a loop on a thread of its own.
    public init() throws {
        let loop = try EventLoop()
        self.loop = loop
        self.thread = EventLoopThread(name: "redis-test") { loop.run() }
    }

    /// Runs `body` on the loop's thread and waits (at most ten seconds) for its result.
    ///
    /// - Parameter body: what to run on the loop.
    @discardableResult
    public func onLoop<T>(_ body: @escaping () -> T) -> T {
        let box = ResultBox<T>()
        self.loop.execute { box.put(body()) }
        guard let value = box.wait(seconds: 10) else { preconditionFailure("the event loop did not answer") }
        return value
    }

    /// Stops the loop and joins its thread.
    public func shutDown() {
        guard !self.isShutDown else { return }
        self.isShutDown = true
        self.loop.stop()
        self.thread.join()
    }
}

/// Polls `condition` every few milliseconds until it holds or `seconds` pass; returns whether it held.
///
/// - Parameters:
///   - seconds: how long to wait at most.
///   - condition: what to wait for.
public func waitUntil(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return condition()
}

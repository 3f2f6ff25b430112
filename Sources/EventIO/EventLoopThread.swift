internal import CWebSocket

#if canImport(Glibc)
internal import Glibc
#endif

/// Starts and joins the threads that run event loops.
public final class EventLoopThread {
    private let thread: pthread_t

    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts a thread running `body`.
    ///
    /// - Parameters:
    ///   - name: the thread's name, shown by `top -H` (at most 15 bytes are kept).
    ///   - body: what the thread runs.
    public init(name: String, _ body: @escaping () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { argument in
                let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
                box.body()
                return nil
            }, box)
        precondition(result == 0, "pthread_create failed: \(result)")
        self.thread = thread
        CWebSocket_setThreadName(thread, String(name.prefix(15)))
    }

    /// Waits for the thread to finish.
    public func join() {
        _ = pthread_join(self.thread, nil)
    }
}

import Foundation

/// The events of one connection attempt's transport, queued for the client's thread.
///
/// A transport may report from any thread; the client's thread takes the events in order, so every message is
/// applied and every callback runs on that one thread. Each attempt has an inbox of its own, so nothing a dropped
/// transport still reports reaches the next connection.
final class TransportInbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var events: [RollcallTransportEvent] = []

    /// Queues an event (any thread).
    func push(_ event: RollcallTransportEvent) {
        self.condition.lock()
        self.events.append(event)
        self.condition.signal()
        self.condition.unlock()
    }

    /// Wakes a thread waiting in `take` without an event.
    func wake() {
        self.condition.lock()
        self.condition.signal()
        self.condition.unlock()
    }

    /// Every event queued, waiting up to `timeout` seconds for the first; empty when none came.
    func take(timeout: Double) -> [RollcallTransportEvent] {
        self.condition.lock()
        defer { self.condition.unlock() }
        if self.events.isEmpty {
            _ = self.condition.wait(until: Date().addingTimeInterval(timeout))
        }
        let events = self.events
        self.events = []
        return events
    }
}

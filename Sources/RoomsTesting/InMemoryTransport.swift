import JSONCoding
import Rooms

/// A transport that keeps everything the gateway sends, per session, so scenarios run without sockets.
public final class InMemoryTransport: RoomsTransport {
    /// A close the gateway asked for.
    public struct Close: Hashable, Sendable {
        public var code: UInt16
        public var reason: String
    }

    /// Every message sent to each session, parsed, in order.
    public private(set) var messages: [SessionID: [JSONValue]] = [:]
    /// Sessions the gateway closed, with the code and reason.
    public private(set) var closes: [SessionID: Close] = [:]
    /// What happened to each session, messages and closes in the order they were asked for.
    public enum Delivery: Hashable, Sendable {
        case message(JSONValue)
        case close(Close)
    }

    /// Every message and close per session, in order (to check that a message was sent before a close).
    public private(set) var timeline: [SessionID: [Delivery]] = [:]

    /// How many times `send` was called and how many deliveries it made (for encode-once checks).
    public private(set) var sendCalls = 0
    public private(set) var deliveries = 0

    public init() {}

    public func send(_ text: [UInt8], to sessions: [SessionID]) {
        self.sendCalls += 1
        let value: JSONValue
        do {
            value = try JSONParser.parse(
                text,
                limits: JSONParser.Limits(
                    maxInputBytes: 16 << 20, maxDepth: 64,
                    maxStringBytes: 1 << 20,
                    maxElementsPerContainer: 1 << 20,
                    maxTotalNodes: 1 << 22))
        } catch {
            preconditionFailure("the gateway sent invalid JSON: \(error)")
        }
        for session in sessions {
            self.deliveries += 1
            self.messages[session, default: []].append(value)
            self.timeline[session, default: []].append(.message(value))
        }
    }

    public func close(_ session: SessionID, code: UInt16, reason: String) {
        self.closes[session] = Close(code: code, reason: reason)
        self.timeline[session, default: []].append(.close(Close(code: code, reason: reason)))
    }

    /// Takes (and forgets) the messages sent to `session` so far.
    public func drain(_ session: SessionID) -> [JSONValue] {
        defer { self.messages[session] = [] }
        return self.messages[session] ?? []
    }
}

/// A clock the test moves by hand, in milliseconds since the epoch.
public final class ManualClock: @unchecked Sendable {
    public var now: Int64

    public init(now: Int64 = 1_764_460_800_000) {
        self.now = now
    }

    /// Moves time forward.
    public func advance(milliseconds: Int64) {
        self.now += milliseconds
    }
}

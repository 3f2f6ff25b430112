import JSONCoding

/// An ephemeral signal (a reaction, or an app-defined kind): fanned out to a room's subscribers, or to one
/// participant's connections, as it arrives, and never part of the room's log. It has no sequence number, is not
/// stored, not resumed, not in the history and not sent to webhooks; a connection that is not there, or is behind
/// on its writes, never sees it (docs/PROTOCOL.md, "signal").
public struct RoomSignal: Hashable, Sendable {
    /// The app's name for it (`reaction` for an emoji burst); the gateway only checks it is an id.
    public var kind: String
    /// What the app sends with it, any JSON up to `RoomsConfiguration.maximumSignalBytes`.
    public var data: JSONValue
    /// The sender's uid, set by the gateway from the token (a client never names it).
    public var from: String
    /// The one participant it is for; nil for every subscriber of the room.
    public var to: String?

    /// - Parameters:
    ///   - kind: the app's name for it.
    ///   - data: what goes with it.
    ///   - from: the sender's uid.
    ///   - to: the one participant it is for, or nil for the whole room.
    public init(kind: String, data: JSONValue, from: String, to: String?) {
        self.kind = kind
        self.data = data
        self.from = from
        self.to = to
    }

    /// The signal as the gateway sends it: `{"type":"signal","room":R,"from":U,"kind":K,"data":D}`, with `"to"`
    /// when it is for one participant.
    ///
    /// - Parameter room: the room it was sent to.
    /// - Returns: the message.
    public func message(room: String) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("type", .string(ServerMessageType.signal.rawValue)), ("room", .string(room)),
            ("from", .string(self.from)), ("kind", .string(self.kind)), ("data", self.data),
        ]
        if let to = self.to { fields.append(("to", .string(to))) }
        return .object(JSONObject(fields))
    }
}

/// One user's allowance of signals in one room: a token bucket holding `signalsPerSecond` signals, refilled at that
/// rate, counted in thousandths of a signal so the refill needs no fractions.
struct SignalBudget {
    private var milliTokens: Int64
    private var updatedAt: Int64

    /// A full bucket.
    init(perSecond rate: Int, now: Int64) {
        self.milliTokens = Int64(rate) * 1000
        self.updatedAt = now
    }

    /// Takes one signal if the bucket holds one.
    ///
    /// - Parameters:
    ///   - rate: signals per second (also the bucket's size).
    ///   - now: the clock, in milliseconds.
    /// - Returns: false when the user is past its rate.
    mutating func spend(perSecond rate: Int, now: Int64) -> Bool {
        let capacity = Int64(rate) * 1000
        let elapsed = max(0, now - self.updatedAt)
        let (refill, overflow) = elapsed.multipliedReportingOverflow(by: Int64(rate))
        self.milliTokens = overflow ? capacity : min(capacity, self.milliTokens + refill)
        self.updatedAt = now
        guard self.milliTokens >= 1000 else { return false }
        self.milliTokens -= 1000
        return true
    }
}

import HTTPClient

/// One configured receiver of webhooks: where deliveries go, the secret they are signed with, and which events of
/// which rooms it wants.
public struct WebhookEndpoint: Hashable, Sendable {
    /// The endpoint's name: its cursor's key in the store, and the `Rollcall-Endpoint` header.
    public var name: String
    /// Where deliveries are posted.
    public var url: HTTPURL
    /// The HMAC-SHA256 key of `Rollcall-Signature`.
    public var secret: [UInt8]
    /// Only these event names (`participant.joined`, `meeting.message`, ...); nil for every event.
    public var eventNames: Set<String>?
    /// Only rooms matching one of these: an exact id, or a prefix followed by `*`; nil for every room.
    public var roomPatterns: [String]?

    /// - Parameters:
    ///   - name: the endpoint's name.
    ///   - url: where deliveries are posted.
    ///   - secret: the signing key.
    ///   - eventNames: the event names it wants; nil for all.
    ///   - roomPatterns: the rooms it wants (`id` or `prefix*`); nil for all.
    public init(
        name: String, url: HTTPURL, secret: [UInt8], eventNames: Set<String>? = nil, roomPatterns: [String]? = nil
    ) {
        self.name = name
        self.url = url
        self.secret = secret
        self.eventNames = eventNames
        self.roomPatterns = roomPatterns
    }

    /// Whether the endpoint wants an event of a room.
    ///
    /// - Parameters:
    ///   - room: the room id.
    ///   - eventName: the event's wire name.
    public func accepts(room: String, eventName: String) -> Bool {
        if let names = self.eventNames, !names.contains(eventName) { return false }
        guard let patterns = self.roomPatterns else { return true }
        return patterns.contains { pattern in
            pattern.hasSuffix("*") ? room.hasPrefix(pattern.dropLast()) : room == pattern
        }
    }
}

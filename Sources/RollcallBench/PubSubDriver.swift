import EventIO
import WebSocketCore

#if canImport(Glibc)
import Glibc
#endif

/// `pubsub`: raw publish and subscribe against any WebSocket server. Subscribers connect to the target and may
/// send one text message each (`--subscribe-message`, e.g. what subscribes them to a topic); after a pause for the
/// subscriptions to take effect (`--settle`), one publisher sends text messages at `--rate` per second, each the
/// `--publish-template` with its payload in place of `{payload}`.
///
/// The payload is `rollcall-bench SEQUENCE SENDTIME` (fixed width) padded to `--size` bytes, with nothing a JSON
/// string would escape, so a server may wrap it (a Rollcall meeting message arrives inside an event): a subscriber
/// finds it anywhere in what it receives and ignores messages without it. Every message published is expected once
/// by every subscriber that was open when the load started.
final class PubSubDriver: BenchDriver {
    /// What starts every payload; a subscriber looks for it in each message.
    static let marker = Array("rollcall-bench ".utf8)
    /// The shortest payload: the marker, the sequence number and the send time.
    static let minimumPayloadSize = marker.count + DeliveryStamp.count
    /// Where the payload goes in the template.
    static let placeholder = "{payload}"

    private var subscribers: [BenchConnection] = []
    private var nextExpected: [UInt64] = []
    private let subscriberCount: Int
    private let firstIndex: Int
    /// Whether this loop runs the publisher (the first loop).
    private let publishes: Bool
    private var publisher: BenchConnection?
    private var publisherOpen = false
    private var published: UInt64 = 0
    private var publishStart: UInt64 = 0
    /// The message with a zeroed payload; the digits are patched in per send.
    private var message: [UInt8] = []
    private var payloadOffset = 0
    /// Subscribers open when the load started, over every loop: each message is expected by each of them.
    var subscribersAtStart = 0

    init(
        loop: EventLoop, options: BenchOptions, counters: BenchCounters, tlsContext: TLSContext?, subscribers: Int,
        firstIndex: Int, publishes: Bool
    ) {
        self.subscriberCount = subscribers
        self.firstIndex = firstIndex
        self.publishes = publishes
        super.init(loop: loop, options: options, counters: counters, tlsContext: tlsContext)
    }

    override var tickInterval: UInt64 { 5_000_000 }

    /// The message to publish: the template with a payload of `size` bytes, digits zeroed, and where the payload
    /// starts.
    static func template(_ template: String, size: Int) -> (message: [UInt8], payloadOffset: Int) {
        var payload = Self.marker + DeliveryStamp.template
        if payload.count < size { payload += Array(repeating: UInt8(ascii: "."), count: size - payload.count) }
        guard let range = template.firstRange(of: Self.placeholder) else { return (payload, 0) }
        let prefix = Array(template[..<range.lowerBound].utf8)
        return (prefix + payload + Array(template[range.upperBound...].utf8), prefix.count)
    }

    override func start() {
        super.start()
        (self.message, self.payloadOffset) = Self.template(self.options.publishTemplate, size: self.options.size)
        for local in 0..<self.subscriberCount {
            let connection = self.makeConnection(index: self.firstIndex + local)
            self.subscribers.append(connection)
            self.nextExpected.append(0)
        }
        if self.publishes {
            let target = self.options.publishTarget ?? self.options.target
            let publisher = self.makeConnection(
                index: self.firstIndex + self.subscriberCount, path: target.path, target: target)
            self.publisher = publisher
            self.open(publisher)
        }
        for subscriber in self.subscribers { self.open(subscriber) }
    }

    override func startLoad() {
        super.startLoad()
        self.publishStart = EventLoop.monotonicNow()
    }

    override func closeAll() {
        super.closeAll()
        self.publisher?.close()
        for subscriber in self.subscribers { subscriber.close() }
    }

    override func didOpen(_ connection: BenchConnection) {
        if connection === self.publisher {
            self.publisherOpen = true
            return
        }
        // Ready counts the subscribers open now.
        self.counters.add(.ready)
        if var text = self.options.subscribeMessage {
            text.withUTF8 { connection.send(.text, payload: UnsafeRawBufferPointer($0)) }
        }
    }

    override func didClose(_ connection: BenchConnection, error: String?) {
        if connection === self.publisher {
            self.publisherOpen = false
        } else {
            self.counters.add(.ready, -1)
        }
    }

    override func tick(now: UInt64) {
        guard self.isLoading, self.publisherOpen, let publisher = self.publisher else { return }
        let due = UInt64(Double(now &- self.publishStart) * Double(self.options.rate) / 1e9)
        var burst = 0
        while self.published < due, burst < 1000 {
            self.publish(publisher)
            burst += 1
        }
    }

    private func publish(_ publisher: BenchConnection) {
        let sequence = self.published
        self.published += 1
        let offset = self.payloadOffset + Self.marker.count
        self.message.withUnsafeBytes { message in
            publisher.sendFrame(.text, payloadCount: message.count) { payload in
                payload.copyMemory(from: message)
                DeliveryStamp.write(sequence: sequence, sentAt: EventLoop.monotonicNow(), into: payload, at: offset)
            }
        }
        self.counters.add(.sent)
        self.counters.add(.expected, self.subscribersAtStart)
    }

    override func connection(
        _ connection: BenchConnection,
        didReceive opcode: WebSocketOpcode,
        payload: UnsafeMutableRawBufferPointer
    ) {
        let received = UnsafeRawBufferPointer(payload)
        guard connection !== self.publisher, let start = PayloadSearch.end(of: Self.marker, in: received),
            let (sequence, sentAt) = DeliveryStamp.read(received, at: start)
        else { return }
        let now = EventLoop.monotonicNow()
        let subscriber = connection.index - self.firstIndex
        guard sequence >= self.nextExpected[subscriber] else {
            self.counters.add(.mismatched)
            return
        }
        self.nextExpected[subscriber] = sequence + 1
        self.counters.add(.received)
        self.recordDelivery(latency: now &- sentAt, at: now)
    }
}

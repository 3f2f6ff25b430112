import JSONCoding
import RoomsTesting
import TokenAuth

@testable import Rooms

/// Several gateways as shards of one process, as the runtime wires them, with one inbox per shard instead of a
/// thread: a test chooses the order in which the shards take their inboxes, so interleavings are deterministic.
/// Every shard writes to one in-memory transport, so a session's messages read in the order the shards sent them.
final class ShardHarness {
    let clock = ManualClock()
    let transport = InMemoryTransport()
    let placement: ShardPlacement
    let authority: SessionAuthority
    let router: ShardRouter
    let gateways: [Gateway]
    let signer: TokenSigner
    private var inboxes: [[(Gateway) -> Void]]
    private var nextSessionID: UInt64 = 1

    init(shards: Int = 2, configure: (inout GatewayConfiguration) -> Void = { _ in }) throws {
        var configuration = GatewayConfiguration()
        configure(&configuration)
        let key = try TokenKey(secret: GatewayHarness.secret)
        self.signer = TokenSigner(key: key)
        self.placement = ShardPlacement(count: shards)
        self.authority = SessionAuthority(placement: self.placement)
        self.router = ShardRouter(configuration: configuration, placement: self.placement)
        let clock = self.clock
        let verifier = try TokenVerifier(keys: [key])
        let transport = self.transport
        self.gateways = (0..<shards).map { _ in
            Gateway(configuration: configuration, verifier: verifier, transport: transport, clock: { clock.now })
        }
        for (index, gateway) in self.gateways.enumerated() {
            gateway.shard = GatewayShard(index: index, authority: self.authority)
        }
        self.inboxes = Array(repeating: [], count: shards)
    }

    // MARK: Placement

    /// A room id (`prefix-N`) that the given shard owns.
    func room(on shard: Int, _ prefix: String = "room") -> String {
        (0...).lazy.map { "\(prefix)-\($0)" }.first { self.placement.shard(ofRoom: $0) == shard }!
    }

    /// The gateway that owns a room.
    func owner(of room: String) -> Gateway {
        self.gateways[self.placement.shard(ofRoom: room)]
    }

    // MARK: Inboxes

    /// Queues work for one shard.
    func enqueue(_ shard: Int, _ work: @escaping (Gateway) -> Void) {
        self.inboxes[shard].append(work)
    }

    /// Runs what one shard has queued.
    func run(_ shard: Int) {
        while !self.inboxes[shard].isEmpty {
            let work = self.inboxes[shard].removeFirst()
            work(self.gateways[shard])
        }
    }

    /// Runs every shard's inbox, in the given order of shards, until all are empty.
    func runAll(order: [Int]? = nil) {
        let order = order ?? Array(self.gateways.indices)
        while self.inboxes.contains(where: { !$0.isEmpty }) {
            for shard in order { self.run(shard) }
        }
    }

    // MARK: Sessions

    /// A fresh session id.
    func newSession() -> SessionID {
        defer { self.nextSessionID += 1 }
        return SessionID(self.nextSessionID)
    }

    /// Queues a session's opening on every shard, as the connection's loop does.
    @discardableResult
    func open(token: String?, id: SessionID? = nil) -> SessionID {
        let id = id ?? self.newSession()
        for shard in self.gateways.indices { self.enqueue(shard) { $0.sessionOpened(id, token: token) } }
        return id
    }

    /// Queues a message where the router sends it.
    func send(_ id: SessionID, _ message: JSONValue) {
        let bytes = Array(JSONWriter.string(message).utf8)
        let (destination, routed) = bytes.withUnsafeBytes { self.router.route($0, from: id) }
        switch destination {
        case .shard(let shard):
            self.enqueue(shard) { $0.sessionReceived(id, routed: routed) }
        case .everyShard:
            for shard in self.gateways.indices { self.enqueue(shard) { $0.sessionReceived(id, routed: routed) } }
        }
    }

    /// Queues a connection's end on every shard.
    func close(_ id: SessionID, cleanly: Bool = true) {
        for shard in self.gateways.indices { self.enqueue(shard) { $0.sessionClosed(id, cleanly: cleanly) } }
    }

    /// Opens an authenticated session, runs every shard, and drains its welcome.
    func connect(_ uid: String, rooms: [String: TokenRole] = [:], groups: [String] = []) throws -> SessionID {
        let id = self.open(token: try self.token(uid, rooms: rooms, groups: groups))
        self.runAll()
        let welcome = self.drain(id)
        guard welcome.count == 1, welcome[0]["type"] == "welcome" else {
            throw HarnessError.unexpected("no single welcome for \(uid): \(welcome)")
        }
        return id
    }

    /// Sends a message, runs every shard, and returns what the session received.
    @discardableResult
    func request(_ id: SessionID, _ message: JSONValue) -> [JSONValue] {
        _ = self.drain(id)
        self.send(id, message)
        self.runAll()
        return self.drain(id)
    }

    /// Joins a room as a participant; throws unless the answer is an ack.
    func join(_ id: SessionID, _ room: String) throws {
        let answer = self.request(id, ["type": "join", "id": "join", "room": .string(room)])
        guard answer.first?["type"] == "ack" else { throw HarnessError.unexpected("join refused: \(answer)") }
    }

    /// Takes the messages the session received so far, roster patches left out.
    func drain(_ id: SessionID) -> [JSONValue] {
        self.transport.drain(id).filter { $0["type"] != "patch" }
    }

    /// Moves the clock and ticks every shard.
    func advance(milliseconds: Int64) {
        self.clock.advance(milliseconds: milliseconds)
        for gateway in self.gateways { gateway.tick() }
    }

    /// Mints a token signed with the test key.
    func token(_ uid: String, rooms: [String: TokenRole] = [:], groups: [String] = []) throws -> String {
        try self.signer.sign(
            TokenClaims(subject: uid, expiresAt: self.clock.now / 1000 + 3600, rooms: rooms, groups: groups))
    }
}

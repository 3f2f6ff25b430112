import JSONCoding
import RoomsTesting
import TokenAuth

@testable import Rooms

/// Several gateways as rooms threads of one process, as the runtime wires them, with one inbox per rooms thread instead of a
/// thread: a test chooses the order in which the rooms threads take their inboxes, so interleavings are deterministic.
/// Every rooms thread writes to one in-memory transport, so a session's messages read in the order the rooms threads sent them.
final class RoomThreadHarness {
    let clock = ManualClock()
    let transport = InMemoryTransport()
    let placement: RoomThreadPlacement
    let authority: SessionAuthority
    let router: RoomThreadRouter
    let gateways: [RoomsNode]
    let signer: TokenSigner
    private var inboxes: [[(RoomsNode) -> Void]]
    private var nextSessionID: UInt64 = 1

    init(roomThreads: Int = 2, configure: (inout RoomsConfiguration) -> Void = { _ in }) throws {
        var configuration = RoomsConfiguration()
        configure(&configuration)
        let key = try TokenKey(secret: RoomsNodeHarness.secret)
        self.signer = TokenSigner(key: key)
        self.placement = RoomThreadPlacement(count: roomThreads)
        self.authority = SessionAuthority(placement: self.placement)
        self.router = RoomThreadRouter(configuration: configuration, placement: self.placement)
        let clock = self.clock
        let verifier = try TokenVerifier(keys: [key])
        let transport = self.transport
        self.gateways = (0..<roomThreads).map { _ in
            RoomsNode(configuration: configuration, verifier: verifier, transport: transport, clock: { clock.now })
        }
        for (index, gateway) in self.gateways.enumerated() {
            gateway.roomThread = RoomThreadPlace(index: index, authority: self.authority)
        }
        self.inboxes = Array(repeating: [], count: roomThreads)
    }

    // MARK: Placement

    /// A room id (`prefix-N`) that the given rooms thread owns.
    func room(on roomThread: Int, _ prefix: String = "room") -> String {
        (0...).lazy.map { "\(prefix)-\($0)" }.first { self.placement.roomThread(ofRoom: $0) == roomThread }!
    }

    /// The gateway that owns a room.
    func owner(of room: String) -> RoomsNode {
        self.gateways[self.placement.roomThread(ofRoom: room)]
    }

    // MARK: Inboxes

    /// Queues work for one rooms thread.
    func enqueue(_ roomThread: Int, _ work: @escaping (RoomsNode) -> Void) {
        self.inboxes[roomThread].append(work)
    }

    /// Runs what one rooms thread has queued.
    func run(_ roomThread: Int) {
        while !self.inboxes[roomThread].isEmpty {
            let work = self.inboxes[roomThread].removeFirst()
            work(self.gateways[roomThread])
        }
    }

    /// Runs every rooms thread's inbox, in the given order of rooms threads, until all are empty.
    func runAll(order: [Int]? = nil) {
        let order = order ?? Array(self.gateways.indices)
        while self.inboxes.contains(where: { !$0.isEmpty }) {
            for roomThread in order { self.run(roomThread) }
        }
    }

    // MARK: Sessions

    /// A fresh session id.
    func newSession() -> SessionID {
        defer { self.nextSessionID += 1 }
        return SessionID(self.nextSessionID)
    }

    /// Queues a session's opening on every rooms thread, as the connection's loop does.
    @discardableResult
    func open(token: String?, id: SessionID? = nil) -> SessionID {
        let id = id ?? self.newSession()
        for roomThread in self.gateways.indices { self.enqueue(roomThread) { $0.sessionOpened(id, token: token) } }
        return id
    }

    /// Queues a message where the router sends it.
    func send(_ id: SessionID, _ message: JSONValue) {
        let bytes = Array(JSONWriter.string(message).utf8)
        let (destination, routed) = bytes.withUnsafeBytes { self.router.route($0, from: id) }
        switch destination {
        case .roomThread(let roomThread):
            self.enqueue(roomThread) { $0.sessionReceived(id, routed: routed) }
        case .everyRoomThread:
            for roomThread in self.gateways.indices {
                self.enqueue(roomThread) { $0.sessionReceived(id, routed: routed) }
            }
        }
    }

    /// Queues a connection's end on every rooms thread.
    func close(_ id: SessionID, cleanly: Bool = true) {
        for roomThread in self.gateways.indices { self.enqueue(roomThread) { $0.sessionClosed(id, cleanly: cleanly) } }
    }

    /// Opens an authenticated session, runs every rooms thread, and drains its welcome.
    func connect(_ uid: String, rooms: [String: TokenRole] = [:], groups: [String] = []) throws -> SessionID {
        let id = self.open(token: try self.token(uid, rooms: rooms, groups: groups))
        self.runAll()
        let welcome = self.drain(id)
        guard welcome.count == 1, welcome[0]["type"] == "welcome" else {
            throw HarnessError.unexpected("no single welcome for \(uid): \(welcome)")
        }
        return id
    }

    /// Sends a message, runs every rooms thread, and returns what the session received.
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

    /// Moves the clock and ticks every rooms thread.
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

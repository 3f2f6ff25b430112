import EventIO
import RollcallBench
import Rooms
import Storage
import Synchronization
import TokenAuth

#if canImport(Glibc)
import Glibc
#endif

/// `rollcall bench rooms-threads`: how many meeting messages per second the rooms threads take over many rooms,
/// measured in-process, without sockets or a client, so nothing but the rooms threads is measured.
///
/// Each room has a publisher and `subscribers` observers, every session known to every rooms thread as in the server.
/// Before the clock starts each rooms thread gets its rooms' messages as text; then every rooms thread, on a thread of its own,
/// reads each message (`RoomThreadRouter`, the work a connection loop does with several threads and the rooms thread with
/// one) and hands it to its gateway, which checks, logs and encodes it for its recipients (the transport only counts
/// them). With one thread the same happens on one gateway. With a store (`storePath`) every rooms thread commits its
/// rooms through its own connection to the file (`SQLiteRoomStore.forAnotherThread()`), once per `batch` messages,
/// as the gateway commits once per iteration of a rooms thread's loop.

enum RoomThreadsBenchmark {
    /// What one run measured.
    struct Report {
        var threads: Int
        var store: Bool = false
        var rooms: Int
        var published: Int
        var deliveries: Int
        var seconds: Double
        var cpuSeconds: [Double]

        var text: String {
            let rate = Double(self.published) / self.seconds
            let cpu = self.cpuSeconds.reduce(0, +)
            return """
                rooms threads \(self.threads), rooms \(self.rooms)\(self.store ? ", store" : ""): \(self.published) meeting messages in \
                \(Self.format(self.seconds)) s = \(Int(rate.rounded())) published/s, \(self.deliveries) deliveries; \
                rooms threads CPU \(self.cpuSeconds.map(Self.format).joined(separator: "/")) s, \
                \(Self.format(cpu / Double(self.published) * 1e6)) us per message
                """
        }

        var json: String {
            let rate = Double(self.published) / self.seconds
            let cpu = self.cpuSeconds.reduce(0, +)
            return """
                {"threads":\(self.threads),"store":\(self.store),"rooms":\(self.rooms),"published":\(self.published),\
                "deliveries":\(self.deliveries),"seconds":\(Self.format(self.seconds)),\
                "publishedPerSecond":\(Int(rate.rounded())),"cpuSeconds":[\
                \(self.cpuSeconds.map(Self.format).joined(separator: ","))],\
                "cpuMicrosecondsPerMessage":\(Self.format(cpu / Double(self.published) * 1e6))}
                """
        }

        private static func format(_ value: Double) -> String {
            String(Double(Int((value * 1000).rounded())) / 1000)
        }
    }

    /// A transport that only counts what the gateway sends.
    private final class CountingTransport: RoomsTransport {
        var deliveries = 0

        func send(_ text: [UInt8], to sessions: [SessionID]) {
            self.deliveries += sessions.count
        }

        func close(_ session: SessionID, code: UInt16, reason: String) {}
    }

    /// One rooms thread with its transport and the messages it will take.
    private final class RoomThread: @unchecked Sendable {
        let gateway: RoomsNode
        let transport = CountingTransport()
        let store: SQLiteRoomStore?
        var load: [(SessionID, [UInt8])] = []
        var cpuSeconds = 0.0

        init(store: SQLiteRoomStore?, _ gateway: (CountingTransport, SQLiteRoomStore?) -> RoomsNode) {
            self.store = store
            self.gateway = gateway(self.transport, store)
        }
    }

    /// Sets the rooms up, then runs every rooms thread's messages on its own thread and reports.
    ///
    /// - Parameters:
    ///   - threads: rooms threads.
    ///   - rooms: rooms, each with its own publisher.
    ///   - subscribers: observers per room.
    ///   - messages: meeting messages per room.
    ///   - storePath: a store file to commit every change to (created when missing); nil keeps rooms in memory.
    ///   - batch: with a store, messages a rooms thread handles between two commits.
    static func run(
        threads: Int, rooms: Int, subscribers: Int, messages: Int, storePath: String? = nil, batch: Int = 64
    ) throws -> Report {
        let key = try TokenKey(secret: "rollcall-bench-rooms-threads-key-0123456789")
        let signer = TokenSigner(key: key)
        let verifier = try TokenVerifier(keys: [key])
        var configuration = RoomsConfiguration()
        configuration.maximumSubscribersPerRoom = max(configuration.maximumSubscribersPerRoom, subscribers + 1)
        let placement = RoomThreadPlacement(count: threads)
        let authority = SessionAuthority(placement: placement)
        let router = RoomThreadRouter(configuration: configuration, placement: placement)
        let clock = { RoomsClock.now() }
        let first = try storePath.map { try SQLiteRoomStore(configuration: StorageConfiguration(path: $0)) }
        let stores = try (0..<threads).map { index in index == 0 ? first : try first?.forAnotherThread() }
        let roomThreads = stores.enumerated().map { index, store in
            RoomThread(store: store) { transport, store in
                RoomsNode(
                    configuration: configuration, verifier: verifier, transport: transport, clock: clock,
                    log: LocalRoomLog(store: store), roomThread: RoomThreadPlace(index: index, authority: authority))
            }
        }
        var nextSession: UInt64 = 1
        func send(_ id: SessionID, _ text: String) {
            let bytes = Array(text.utf8)
            let (destination, routed) = bytes.withUnsafeBytes { router.route($0, from: id) }
            switch destination {
            case .roomThread(let index): roomThreads[index].gateway.sessionReceived(id, routed: routed)
            case .everyRoomThread:
                for roomThread in roomThreads { roomThread.gateway.sessionReceived(id, routed: routed) }
            }
        }
        func connect(_ uid: String, group: String) throws -> SessionID {
            let id = SessionID(nextSession)
            nextSession += 1
            let token = try signer.sign(
                TokenClaims(subject: uid, expiresAt: RoomsClock.now() / 1000 + 3600, groups: [group]))
            for roomThread in roomThreads { roomThread.gateway.sessionOpened(id, token: token) }
            return id
        }
        var publishers: [(SessionID, String)] = []
        for room in 0..<rooms {
            let group = "room-\(room)"
            for subscriber in 0..<subscribers {
                let id = try connect("observer-\(room)-\(subscriber)", group: group)
                send(id, #"{"type":"join","room":"\#(group)","as":"observer"}"#)
            }
            publishers.append((try connect("publisher-\(room)", group: group), group))
        }
        for round in 0..<messages {
            for (id, group) in publishers {
                let text =
                    #"{"type":"meeting","group":"\#(group)","sessionId":"call-\#(round)","text":"item \#(round)"}"#
                roomThreads[placement.roomThread(ofRoom: group)].load.append((id, Array(text.utf8)))
            }
        }
        for roomThread in roomThreads { try roomThread.store?.commit() }
        let before = roomThreads.map(\.transport.deliveries)
        let batch = max(1, batch)
        let start = RoomsClock.monotonic()
        let workers = roomThreads.enumerated().map { index, roomThread in
            EventLoopThread(name: "rollcall-rooms\(index == 0 ? "" : String(index))") {
                let cpu = RoomsClock.threadCPU()
                for (index, (id, text)) in roomThread.load.enumerated() {
                    let (_, routed) = text.withUnsafeBytes { router.route($0, from: id) }
                    roomThread.gateway.sessionReceived(id, routed: routed)
                    if index % batch == batch - 1 { try? roomThread.store?.commit() }
                }
                try? roomThread.store?.commit()
                roomThread.cpuSeconds = RoomsClock.threadCPU() - cpu
            }
        }
        for worker in workers { worker.join() }
        let seconds = RoomsClock.monotonic() - start
        let deliveries = zip(roomThreads, before).reduce(0) { $0 + $1.0.transport.deliveries - $1.1 }
        let committed = stores.compactMap { $0?.statistics.entriesWritten }.reduce(0, +)
        if first != nil, committed < rooms * messages {
            throw BenchError("the store committed \(committed) entries of \(rooms * messages)")
        }
        return Report(
            threads: threads, store: first != nil, rooms: rooms, published: rooms * messages, deliveries: deliveries,
            seconds: seconds,
            cpuSeconds: roomThreads.map(\.cpuSeconds))
    }
}

/// The clocks the benchmark reads.
private enum RoomsClock {
    static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    static func monotonic() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    static func threadCPU() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

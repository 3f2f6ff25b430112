import EventIO
import JSONCoding
import TokenAuth

#if canImport(Glibc)
import Glibc
#endif

/// What a soak run does and for how long.
public struct SoakOptions: Sendable {
    /// The longest soak run accepted, in seconds (6 hours).
    public static let maximumDuration: Double = 6 * 3600

    /// The server's rooms endpoint, e.g. `ws://127.0.0.1:8080/v1/ws`.
    public var target: BenchTarget
    /// Seconds of churn.
    public var duration: Double = 60
    /// Seconds between report lines (and samples).
    public var interval: Double = 10
    /// The server process whose memory and descriptors are sampled.
    public var serverPID: Int32?
    /// Client slots: at most this many connections are open at once.
    public var connections = 50
    /// Rooms the clients spread over.
    public var rooms = 10
    /// Actions (connect and join, state change, leave, close, drop) per second, over all clients.
    public var rate = 20
    /// The token key as `kid:secret`.
    public var key = "dev:rollcall-development-key-change-me"
    /// The longest any socket operation waits, in seconds.
    public var timeout: Double = 2
    /// Seeds the choice of actions, so a run can be repeated.
    public var seed: UInt64 = 1

    public init(target: BenchTarget) {
        self.target = target
    }

    /// Checks every bound.
    public func validate() throws(BenchError) {
        guard self.duration > 0, self.duration <= Self.maximumDuration else {
            throw BenchError("--duration must be in (0, \(Int(Self.maximumDuration))] seconds for soak")
        }
        guard self.interval >= 1, self.interval <= 3600 else { throw BenchError("--interval must be 1...3600 seconds") }
        guard (1...5_000).contains(self.connections) else {
            throw BenchError("--connections must be 1...5000 for soak")
        }
        guard (1...100).contains(self.rooms) else { throw BenchError("--rooms must be 1...100 for soak") }
        guard (1...1_000).contains(self.rate) else { throw BenchError("--rate must be 1...1000 actions per second") }
        guard self.timeout > 0, self.timeout <= 60 else { throw BenchError("--timeout must be in (0, 60] seconds") }
        guard !self.target.isSecure else { throw BenchError("soak runs over ws:// only") }
        guard self.serverPID != nil else {
            throw BenchError("soak needs --server-pid PID (the server's memory and descriptors are its point)")
        }
    }
}

/// One sample of the server's resources.
public struct SoakSample: Sendable {
    /// Seconds since the start.
    public var elapsed: Double
    /// VmRSS of the server, in bytes.
    public var rssBytes: Int?
    /// Open descriptors of the server.
    public var fds: Int?
    /// Soak rooms with someone in the call, and participants in them, as the server answers a `rooms` query.
    public var rooms: Int?
    public var roster: Int?
    /// Soak connections open on the client side.
    public var clients: Int

    var json: JSONValue {
        func number(_ value: Int?) -> JSONValue { value.map { .int(Int64($0)) } ?? .null }
        return .object(
            JSONObject(uniqueKeysWithValues: [
                ("t", .double((self.elapsed * 10).rounded() / 10)), ("rssBytes", number(self.rssBytes)),
                ("fds", number(self.fds)), ("rooms", number(self.rooms)), ("roster", number(self.roster)),
                ("clients", .int(Int64(self.clients))),
            ]))
    }

    var line: String {
        func show(_ value: Int?) -> String { value.map(String.init) ?? "?" }
        let rss = self.rssBytes.map { String(format1: Double($0) / 1_048_576) + " MiB" } ?? "?"
        return "[\(Int(self.elapsed.rounded()))s] rss \(rss), fds \(show(self.fds)), rooms \(show(self.rooms)), "
            + "roster \(show(self.roster)), clients \(self.clients)"
    }
}

/// What a soak run did and saw.
public struct SoakReport: Sendable {
    public var target: String
    public var elapsedSeconds: Double
    public var samples: [SoakSample]
    /// Actions by kind, and what went wrong.
    public var counts: [(String, Int)]

    /// The least-squares slope per hour of a series, over the samples after the first (which is taken before the
    /// clients connect): a leak shows as a steady positive slope.
    /// With `lastHalfOnly`, over the second half of the run only: warm-up (history filling to its cap, allocator
    /// pools growing) is left out, so what remains is the steady state.
    public func slopePerHour(_ value: (SoakSample) -> Int?, lastHalfOnly: Bool = false) -> Double? {
        let half = (self.samples.last?.elapsed ?? 0) / 2
        let points = self.samples.dropFirst().filter { !lastHalfOnly || $0.elapsed >= half }.compactMap { sample in
            value(sample).map { (sample.elapsed / 3600, Double($0)) }
        }
        guard points.count >= 2 else { return nil }
        let meanX = points.map(\.0).reduce(0, +) / Double(points.count)
        let meanY = points.map(\.1).reduce(0, +) / Double(points.count)
        let spread = points.map { ($0.0 - meanX) * ($0.0 - meanX) }.reduce(0, +)
        guard spread > 0 else { return nil }
        return points.map { ($0.0 - meanX) * ($0.1 - meanY) }.reduce(0, +) / spread
    }

    private func slopes(lastHalfOnly: Bool = false) -> [(String, Double?)] {
        [
            ("rssBytes", self.slopePerHour(\.rssBytes, lastHalfOnly: lastHalfOnly)),
            ("fds", self.slopePerHour(\.fds, lastHalfOnly: lastHalfOnly)),
            ("rooms", self.slopePerHour(\.rooms, lastHalfOnly: lastHalfOnly)),
            ("roster", self.slopePerHour(\.roster, lastHalfOnly: lastHalfOnly)),
        ]
    }

    private static func json(_ slopes: [(String, Double?)]) -> JSONValue {
        .object(
            JSONObject(
                uniqueKeysWithValues: slopes.map { name, slope in
                    (name, slope.map { .double(($0 * 10).rounded() / 10) } ?? .null)
                }))
    }

    private static func text(_ slopes: [(String, Double?)]) -> String {
        slopes.map { name, slope in "\(name) " + (slope.map { String(format1: $0) } ?? "?") }.joined(separator: ", ")
    }

    public var json: JSONValue {
        .object(
            JSONObject(uniqueKeysWithValues: [
                ("scenario", .string("soak")), ("target", .string(self.target)),
                ("elapsedSeconds", .double((self.elapsedSeconds * 10).rounded() / 10)),
                ("counts", .object(JSONObject(uniqueKeysWithValues: self.counts.map { ($0.0, .int(Int64($0.1))) }))),
                ("samples", .array(self.samples.map(\.json))),
                ("slopePerHour", Self.json(self.slopes())),
                ("slopePerHourLastHalf", Self.json(self.slopes(lastHalfOnly: true))),
            ]))
    }

    public var text: String {
        var lines = ["soak \(self.target): \(Int(self.elapsedSeconds.rounded())) s, \(self.samples.count) samples"]
        lines.append(self.counts.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
        lines.append("slope per hour: " + Self.text(self.slopes()))
        lines.append("slope per hour, second half: " + Self.text(self.slopes(lastHalfOnly: true)))
        return lines.joined(separator: "\n")
    }
}

extension String {
    /// A number with one decimal.
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = (tenths < 0 ? "-" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }
}

/// `soak`: hours of churn at a moderate rate through the rooms protocol — connections, joins, state changes, clean
/// closes and dropped sockets that reconnect — while the server's memory, descriptors, rooms and roster entries
/// are sampled, so that a leak shows as a slope.
public enum SoakRunner {
    private struct Slot {
        let uid: String
        let room: String
        var client: SoakClient?
        var observer = false
    }

    /// Runs the soak; `progress` gets one line per sample.
    public static func run(_ options: SoakOptions, progress: ((String) -> Void)? = nil) throws(BenchError) -> SoakReport
    {
        try options.validate()
        let pid = options.serverPID!
        guard BenchRunner.residentSetSize(of: pid) != nil else { throw BenchError("cannot read /proc/\(pid)/status") }
        _ = System.raiseOpenFileLimit()
        let signer = try Self.signer(options.key)
        let roomIDs = (0..<options.rooms).map { "soak-room-\($0)" }
        let expiry = Int64(time(nil)) + Int64(SoakOptions.maximumDuration) + 3600
        func token(_ claims: TokenClaims) throws(BenchError) -> String {
            do { return try signer.sign(claims) } catch { throw BenchError("cannot sign a token: \(error)") }
        }
        let botToken = try token(
            TokenClaims(
                subject: "soak-bot", expiresAt: expiry,
                rooms: Dictionary(uniqueKeysWithValues: roomIDs.map { ($0, .bot) }),
                issuedAt: Int64(time(nil))
            ))
        var slots = (0..<options.connections).map { Slot(uid: "soak-\($0)", room: roomIDs[$0 % roomIDs.count]) }
        var tokens: [String] = []
        for slot in slots {
            tokens.append(
                try token(
                    TokenClaims(subject: slot.uid, expiresAt: expiry, groups: [slot.room], issuedAt: Int64(time(nil)))))
        }
        var counts: [String: Int] = [:]
        var random = SplitMix(seed: options.seed)
        var bot: SoakClient?
        var queryID = 0
        let start = EventLoop.monotonicNow()
        func elapsed() -> Double { Double(EventLoop.monotonicNow() - start) / 1e9 }

        func retire(_ client: SoakClient, expectedClose: Bool) {
            counts["messagesReceived", default: 0] += client.messages
            counts["errorsReceived", default: 0] += client.errors
            if !expectedClose, let code = client.closeCode { counts["closedByServer\(code)", default: 0] += 1 }
        }

        func connect(_ index: Int) {
            do {
                let client = try SoakClient(
                    target: options.target, path: options.target.path + "?token=" + tokens[index],
                    timeout: options.timeout, seed: UInt32(truncatingIfNeeded: random.next()))
                counts["connects", default: 0] += 1
                let observer = random.next() % 5 == 0
                let join =
                    observer
                    ? "{\"type\":\"join\",\"room\":\"\(slots[index].room)\",\"as\":\"observer\",\"events\":\"none\"}"
                    : "{\"type\":\"join\",\"room\":\"\(slots[index].room)\",\"device\":\"d\",\"events\":\"notable\"}"
                client.send(text: join)
                counts[observer ? "watches" : "joins", default: 0] += 1
                slots[index].client = client
                slots[index].observer = observer
            } catch {
                counts["connectFailures", default: 0] += 1
            }
        }

        func act() {
            let index = Int(random.next() % UInt64(slots.count))
            guard let client = slots[index].client, client.isOpen else {
                if let gone = slots[index].client { retire(gone, expectedClose: false) }
                slots[index].client = nil
                connect(index)
                return
            }
            let room = slots[index].room
            let roll = random.next() % 100
            switch roll {
            case 0..<55:
                if slots[index].observer {
                    client.send(text: "{\"type\":\"ping\"}")
                    counts["pings", default: 0] += 1
                } else {
                    let field = ["handRaised", "audioMuted", "videoPaused", "presenting"][Int(roll % 4)]
                    client.send(
                        text: "{\"type\":\"state\",\"room\":\"\(room)\",\"\(field)\":\(random.next() % 2 == 0)}")
                    counts["stateChanges", default: 0] += 1
                }
            case 55..<65:
                if slots[index].observer {
                    client.send(text: "{\"type\":\"ping\"}")
                    counts["pings", default: 0] += 1
                } else {
                    client.send(text: "{\"type\":\"speaker\",\"room\":\"\(room)\",\"uid\":\"\(slots[index].uid)\"}")
                    counts["speakerChanges", default: 0] += 1
                }
            case 65..<78:
                client.send(text: "{\"type\":\"leave\",\"room\":\"\(room)\"}")
                client.closeCleanly()
                retire(client, expectedClose: true)
                slots[index].client = nil
                counts["leavesAndCloses", default: 0] += 1
            case 78..<86:
                client.closeCleanly()
                retire(client, expectedClose: true)
                slots[index].client = nil
                counts["cleanCloses", default: 0] += 1
            default:
                // A dropped socket; the next action on this slot reconnects (a restore within the grace period).
                client.drop()
                retire(client, expectedClose: true)
                slots[index].client = nil
                counts["drops", default: 0] += 1
            }
        }

        func sample() -> SoakSample {
            var rooms: Int?
            var roster: Int?
            if bot == nil || bot?.isOpen != true {
                bot = try? SoakClient(
                    target: options.target, path: options.target.path + "?token=" + botToken,
                    timeout: options.timeout, seed: 7)
            }
            if let bot, bot.isOpen {
                queryID += 1
                bot.send(text: "{\"type\":\"query\",\"id\":\(queryID),\"query\":\"rooms\"}")
                if let answer = bot.waitForText(containing: "\"id\":\(queryID),"),
                    let value = try? JSONParser.parse(answer), let list = value["rooms"]?.arrayValue
                {
                    rooms = list.filter { $0["active"]?.boolValue == true }.count
                    roster = list.compactMap { $0["participants"]?.intValue }.reduce(0) { $0 + Int($1) }
                }
            }
            return SoakSample(
                elapsed: elapsed(), rssBytes: BenchRunner.residentSetSize(of: pid), fds: Self.descriptorCount(of: pid),
                rooms: rooms, roster: roster, clients: slots.filter { $0.client?.isOpen == true }.count
            )
        }

        var samples: [SoakSample] = []
        func record() {
            let taken = sample()
            samples.append(taken)
            progress?(
                taken.line + ", actions \(counts.filter { Self.actionNames.contains($0.key) }.values.reduce(0, +))"
                    + ", errors \(counts["errorsReceived", default: 0] + slots.compactMap { $0.client?.errors }.reduce(0, +))"
            )
        }

        record()
        var nextReport = options.interval
        var nextAction = 0.0
        let step = 1 / Double(options.rate)
        var lastDrain = 0.0
        while elapsed() < options.duration {
            let now = elapsed()
            if now >= nextReport {
                record()
                nextReport += options.interval
            }
            if now >= nextAction {
                act()
                nextAction += step
                // After a stall, do not try to catch up with a burst.
                if nextAction < now - 1 { nextAction = now }
            }
            if now - lastDrain >= 0.05 {
                for slot in slots { slot.client?.drain() }
                bot?.drain()
                lastDrain = now
            }
            let pause = max(0, min(nextAction, nextReport, lastDrain + 0.05) - elapsed())
            if pause > 0 {
                var spec = timespec(tv_sec: 0, tv_nsec: Int(min(pause, 0.05) * 1e9))
                nanosleep(&spec, nil)
            }
        }
        record()
        for index in slots.indices {
            if let client = slots[index].client {
                client.closeCleanly()
                retire(client, expectedClose: true)
            }
        }
        bot?.closeCleanly()
        return SoakReport(
            target: options.target.description,
            elapsedSeconds: elapsed(),
            samples: samples,
            counts: counts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        )
    }

    private static let actionNames: Set<String> = [
        "connects", "stateChanges", "speakerChanges", "pings", "leavesAndCloses", "cleanCloses", "drops",
    ]

    private static func signer(_ text: String) throws(BenchError) -> TokenSigner {
        do {
            if let colon = text.firstIndex(of: ":") {
                return TokenSigner(
                    key: try TokenKey(keyID: String(text[..<colon]), secret: String(text[text.index(after: colon)...])))
            }
            return TokenSigner(key: try TokenKey(secret: text))
        } catch {
            throw BenchError("--key: \(error)")
        }
    }

    /// Open descriptors of a process: the entries of /proc/PID/fd.
    static func descriptorCount(of pid: Int32) -> Int? {
        guard let directory = opendir("/proc/\(pid)/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { count += 1 }
        }
        return count
    }
}

/// A small seeded generator (SplitMix64), so a soak run's actions repeat with the same seed.
struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) {
        self.state = seed
    }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var value = self.state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

import EventIO
import JSONCoding

/// One soak run on its event loop: client slots that connect, join, change their state, leave, close and drop at
/// the configured rate, and samples of the server's resources at every interval (see `SoakRunner`).
///
/// Every action and sample is a timer on the loop, which runs on the thread that called `SoakRunner.run`.
final class SoakRun {
    private struct Slot {
        let uid: String
        let room: String
        let token: String
        var client: SoakClient?
        var observer = false
    }

    /// A sample waiting for the bot's answer to its rooms query.
    private struct PendingSample {
        var sample: SoakSample
        var queryID: Int
        var timeout: TimerID
        var then: (() -> Void)?
    }

    private let options: SoakOptions
    private let pid: Int32
    private let loop: EventLoop
    private let botToken: String
    private let progress: ((String) -> Void)?
    private let counters = BenchCounters()
    private let compressionBuffers = BenchCompressionBuffers()
    private var slots: [Slot]
    private var counts: [String: Int] = [:]
    private var random: SplitMix
    private var bot: SoakClient?
    private var queryID = 0
    private var pendingSample: PendingSample?
    private(set) var samples: [SoakSample] = []
    private let start = EventLoop.monotonicNow()
    private var nextAction = 0.0
    private var nextConnectionIndex = 0
    private var isEnding = false
    /// Clients in their close handshake, kept until it is over.
    private var closing: [ObjectIdentifier: SoakClient] = [:]

    /// The action names whose counts make up the progress line's total.
    private static let actionNames: Set<String> = [
        "connects", "stateChanges", "speakerChanges", "pings", "leavesAndCloses", "cleanCloses", "drops",
    ]

    /// - Parameters:
    ///   - options: what to do.
    ///   - pid: the server process sampled.
    ///   - rooms: the rooms the slots spread over.
    ///   - tokens: one token per slot (its user, with its room in its groups).
    ///   - botToken: the sampling bot's token (a bot in every room).
    ///   - loop: the loop the run runs on.
    ///   - progress: told one line per sample.
    init(
        options: SoakOptions, pid: Int32, rooms: [String], tokens: [String], botToken: String, loop: EventLoop,
        progress: ((String) -> Void)?
    ) {
        self.options = options
        self.pid = pid
        self.loop = loop
        self.botToken = botToken
        self.progress = progress
        self.random = SplitMix(seed: options.seed)
        self.slots = (0..<options.connections).map {
            Slot(uid: "soak-\($0)", room: rooms[$0 % rooms.count], token: tokens[$0])
        }
    }

    /// Seconds since the run started.
    private var elapsed: Double { Double(EventLoop.monotonicNow() - self.start) / 1e9 }

    /// Starts: the first sample (before any client connects), then the actions, the samples and the end as timers.
    func begin() {
        self.record { [weak self] in
            guard let self else { return }
            self.scheduleAction()
            self.scheduleReport(at: self.options.interval)
            self.after(self.options.duration - self.elapsed) { $0.end() }
        }
    }

    /// What the run did.
    func report() -> SoakReport {
        SoakReport(
            target: self.options.target.description,
            elapsedSeconds: self.elapsed,
            samples: self.samples,
            counts: self.counts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        )
    }

    // MARK: Timers

    /// Runs `work` on the loop after `seconds`, unless the run is gone by then.
    private func after(_ seconds: Double, _ work: @escaping (SoakRun) -> Void) {
        self.loop.scheduleTimer(afterNanoseconds: UInt64(max(0, seconds) * 1e9)) { [weak self] in
            if let self { work(self) }
        }
    }

    private func scheduleAction() {
        self.after(self.nextAction - self.elapsed) { run in
            guard !run.isEnding else { return }
            run.act()
            run.nextAction += 1 / Double(run.options.rate)
            // After a stall, do not try to catch up with a burst.
            let now = run.elapsed
            if run.nextAction < now - 1 { run.nextAction = now }
            run.scheduleAction()
        }
    }

    private func scheduleReport(at time: Double) {
        guard time < self.options.duration else { return }
        self.after(time - self.elapsed) { run in
            guard !run.isEnding else { return }
            run.record()
            run.scheduleReport(at: time + run.options.interval)
        }
    }

    /// The last sample, then every client closes cleanly; the loop stops once they are closed (or after the
    /// timeout).
    private func end() {
        self.isEnding = true
        self.record { [weak self] in
            guard let self else { return }
            for index in self.slots.indices {
                if let client = self.slots[index].client {
                    self.closeCleanly(client)
                    self.retire(client, expectedClose: true)
                    self.slots[index].client = nil
                }
            }
            if let bot = self.bot { self.closeCleanly(bot) }
            self.bot = nil
            self.stopWhenClosed(deadline: self.elapsed + self.options.timeout)
        }
    }

    /// Stops the loop once every close handshake is over, or at `deadline`.
    private func stopWhenClosed(deadline: Double) {
        guard !self.closing.isEmpty, self.elapsed < deadline else {
            self.loop.stop()
            return
        }
        self.after(0.01) { $0.stopWhenClosed(deadline: deadline) }
    }

    /// Starts `client`'s close handshake and keeps the client until it is over.
    private func closeCleanly(_ client: SoakClient) {
        let key = ObjectIdentifier(client)
        self.closing[key] = client
        client.onClose = { [weak self] _ in self?.closing[key] = nil }
        client.closeCleanly()
    }

    // MARK: Actions

    private func makeClient(path: String) -> SoakClient {
        self.nextConnectionIndex += 1
        let connection = BenchConnection(
            index: self.nextConnectionIndex, loop: self.loop, target: self.options.target,
            path: self.options.target.path + path, tlsContext: nil, offersCompression: false,
            counters: self.counters, compressionBuffers: self.compressionBuffers)
        return SoakClient(connection: connection)
    }

    private func retire(_ client: SoakClient, expectedClose: Bool) {
        self.counts["messagesReceived", default: 0] += client.messages
        self.counts["errorsReceived", default: 0] += client.errors
        if !expectedClose, let code = client.closeCode { self.counts["closedByServer\(code)", default: 0] += 1 }
    }

    private func connect(_ index: Int) {
        let client = self.makeClient(path: "?token=" + self.slots[index].token)
        let observer = self.random.next() % 5 == 0
        let room = self.slots[index].room
        client.onOpen = { [weak self, unowned client] in
            guard let self else { return }
            self.counts["connects", default: 0] += 1
            let join =
                observer
                ? "{\"type\":\"join\",\"room\":\"\(room)\",\"as\":\"observer\",\"events\":\"none\"}"
                : "{\"type\":\"join\",\"room\":\"\(room)\",\"device\":\"d\",\"events\":\"notable\"}"
            client.send(text: join)
            self.counts[observer ? "watches" : "joins", default: 0] += 1
        }
        client.onClose = { [weak self] wasOpen in
            if !wasOpen { self?.counts["connectFailures", default: 0] += 1 }
        }
        self.slots[index].client = client
        self.slots[index].observer = observer
        client.connection.start(from: nil)
    }

    private func act() {
        let index = Int(self.random.next() % UInt64(self.slots.count))
        guard let client = self.slots[index].client, client.isLive else {
            if let gone = self.slots[index].client { self.retire(gone, expectedClose: false) }
            self.slots[index].client = nil
            self.connect(index)
            return
        }
        let room = self.slots[index].room
        let roll = self.random.next() % 100
        // A client still connecting lets its turn pass.
        guard client.isOpen else { return }
        switch roll {
        case 0..<55:
            if self.slots[index].observer {
                client.send(text: "{\"type\":\"ping\"}")
                self.counts["pings", default: 0] += 1
            } else {
                let field = ["handRaised", "audioMuted", "videoPaused", "presenting"][Int(roll % 4)]
                client.send(
                    text: "{\"type\":\"state\",\"room\":\"\(room)\",\"\(field)\":\(self.random.next() % 2 == 0)}")
                self.counts["stateChanges", default: 0] += 1
            }
        case 55..<65:
            if self.slots[index].observer {
                client.send(text: "{\"type\":\"ping\"}")
                self.counts["pings", default: 0] += 1
            } else {
                client.send(text: "{\"type\":\"speaker\",\"room\":\"\(room)\",\"uid\":\"\(self.slots[index].uid)\"}")
                self.counts["speakerChanges", default: 0] += 1
            }
        case 65..<78:
            client.send(text: "{\"type\":\"leave\",\"room\":\"\(room)\"}")
            self.closeCleanly(client)
            self.retire(client, expectedClose: true)
            self.slots[index].client = nil
            self.counts["leavesAndCloses", default: 0] += 1
        case 78..<86:
            self.closeCleanly(client)
            self.retire(client, expectedClose: true)
            self.slots[index].client = nil
            self.counts["cleanCloses", default: 0] += 1
        default:
            // A dropped socket; the next action on this slot reconnects (a restore within the grace period).
            client.drop()
            self.retire(client, expectedClose: true)
            self.slots[index].client = nil
            self.counts["drops", default: 0] += 1
        }
    }

    // MARK: Samples

    /// Takes a sample: the server's memory and descriptors now, its rooms and roster from the bot's query answer
    /// (or none, when no answer comes within the timeout); then runs `then`.
    private func record(then: (() -> Void)? = nil) {
        self.completePendingSample()
        let sample = SoakSample(
            elapsed: self.elapsed, rssBytes: BenchRunner.residentSetSize(of: self.pid),
            fds: SoakRunner.descriptorCount(of: self.pid), rooms: nil, roster: nil,
            clients: self.slots.filter { $0.client?.isOpen == true }.count)
        self.queryID += 1
        let id = self.queryID
        let timeout = self.loop.scheduleTimer(afterNanoseconds: UInt64(self.options.timeout * 1e9)) {
            [weak self] in
            guard let self, self.pendingSample?.queryID == id else { return }
            self.completePendingSample()
        }
        self.pendingSample = PendingSample(sample: sample, queryID: id, timeout: timeout, then: then)
        let bot = self.liveBot()
        if bot.isOpen { self.sendQuery(id, from: bot) }
    }

    /// The bot, connected again when it is gone.
    private func liveBot() -> SoakClient {
        if let bot = self.bot, bot.isLive { return bot }
        let bot = self.makeClient(path: "?token=" + self.botToken)
        bot.onOpen = { [weak self, unowned bot] in
            if let pending = self?.pendingSample { self?.sendQuery(pending.queryID, from: bot) }
        }
        bot.onText = { [weak self] text in self?.read(answer: text) }
        bot.onClose = { [weak self] _ in self?.completePendingSample() }
        self.bot = bot
        bot.connection.start(from: nil)
        return bot
    }

    private func sendQuery(_ id: Int, from bot: SoakClient) {
        bot.send(text: "{\"type\":\"query\",\"id\":\(id),\"query\":\"rooms\"}")
    }

    /// A bot's message: the answer to the pending sample's query completes it.
    private func read(answer text: UnsafeRawBufferPointer) {
        guard var pending = self.pendingSample,
            PayloadSearch.end(of: Array("\"id\":\(pending.queryID),".utf8), in: text) != nil
        else { return }
        if let value = try? JSONParser.parse(Array(text)), let list = value["rooms"]?.arrayValue {
            pending.sample.rooms = list.filter { $0["active"]?.boolValue == true }.count
            pending.sample.roster = list.compactMap { $0["participants"]?.intValue }.reduce(0) { $0 + Int($1) }
            self.pendingSample = pending
        }
        self.completePendingSample()
    }

    /// Keeps the pending sample as it stands and reports it.
    private func completePendingSample() {
        guard let pending = self.pendingSample else { return }
        self.pendingSample = nil
        self.loop.cancelTimer(pending.timeout)
        self.samples.append(pending.sample)
        let actions = self.counts.filter { Self.actionNames.contains($0.key) }.values.reduce(0, +)
        let errors =
            self.counts["errorsReceived", default: 0] + self.slots.compactMap { $0.client?.errors }.reduce(0, +)
        self.progress?(pending.sample.line + ", actions \(actions), errors \(errors)")
        pending.then?()
    }
}

@available(*, unavailable) extension SoakRun: Sendable {}

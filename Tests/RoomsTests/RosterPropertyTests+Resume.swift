import JSONCoding
import RoomsTesting

@testable import Rooms

/// The random roster call's resumes: bursts of traffic longer than a short history, restarts on a store, and the
/// checks that every observer, live or resumed, gets each event its mode takes exactly once (against the ledger of
/// every event sent), that a resume is recovered whenever what it missed is retained, and never partly.
extension RandomRosterCall {
    /// What a resume must come to, worked out before the observer joins again.
    struct ResumeExpectation {
        /// Up to where the observer has everything its subscription takes.
        var position: UInt64
        /// Whether the gateway holds everything the resume needs, so that a fresh snapshot would lose events for
        /// no reason.
        var mustRecover: Bool
        /// Whether the observer missed more entries than the history keeps in memory.
        var missedBeyondHistory: Bool
        /// Whether a restart happened while the observer was away.
        var acrossRestart: Bool
    }

    // MARK: Steps

    /// Now and then a burst of traffic or (with a store) a restart, instead of one of the usual steps.
    func playResumeStep() throws -> Bool {
        switch self.random(self.ledger.resumeFocus ? 8 : 24) {
        case 0:
            try self.playBurst()
            return true
        case 1 where self.ledger.store != nil:
            try self.restart()
            return true
        default:
            return false
        }
    }

    /// One participant's hand goes up and down many times, patches going out every ten changes, with now and
    /// then a meeting message to the room's group: more entries than a short history keeps, of which the
    /// `notable` and `none` modes take few.
    private func playBurst() throws {
        guard let device = self.pickDevice() else { return }
        let count = 10 + self.random(40)
        for index in 0..<count {
            self.harness.send(device, ["type": "state", "room": "r", "handRaised": .bool(index % 2 == 0)])
            if index % 10 == 9 { self.harness.advance(milliseconds: 60) }
            if self.random(25) == 0 { try self.sendMeetingMessage() }
        }
    }

    /// The host, as a member of the room's group, announces a meeting to it without joining.
    private func sendMeetingMessage() throws {
        let session = try self.harness.connect("u-host", name: "Host", rooms: ["r": .moderator], groups: ["r"])
        self.harness.send(
            session,
            [
                "type": "meeting", "group": "r", "sessionId": .string("s-\(self.step)"), "callType": "audio",
                "text": "now",
            ])
        self.harness.close(session, cleanly: true)
    }

    /// The process ends and a new gateway starts on the same store and clock: every connection is gone (devices
    /// come back by joining again, observers by resuming, the watching host by watching again), and the recorder
    /// joins again.
    private func restart() throws {
        guard let store = self.ledger.store else { return }
        try self.deliver()
        store.crash()
        self.harness = try RoomsNodeHarness(clock: self.harness.clock, store: store, configure: self.configure)
        self.harness.gateway.storeCheckpointInterval = self.ledger.storeCheckpointInterval
        self.devices = [:]
        self.waitingDevices = [:]
        self.watchingHost = nil
        for index in self.observers.indices { self.observers[index].session = nil }
        self.ledger.restarts += 1
        self.ledger.recorder = nil
        try self.startRecorder()
    }

    // MARK: The ledger

    /// Joins the subscriber that takes every event; what the room logged before it joined and after the ledger
    /// last looked (the devices a restarted gateway counts as lost when it reads the room back) comes from the
    /// room's history.
    func startRecorder() throws {
        let session = try self.harness.connect("o-ledger", rooms: ["r": .viewer])
        self.harness.send(
            session,
            ["type": "join", "id": "l", "room": "r", "as": "observer", "view": ["filter": "speakers"], "events": "all"])
        let answer = self.harness.drainWithPatches(session)
        guard answer.first?["type"] == "ack", let ack = answer.first?["seq"]?.intValue.map(UInt64.init) else {
            throw self.fail("the recorder could not join: \(answer)")
        }
        if ack > self.ledger.recordedThrough {
            let history = try self.harness.gateway.storedHistory(
                "r", after: self.ledger.recordedThrough, eventNames: nil, limit: 100_000, viewer: "o-ledger")
            let stable = self.harness.gateway.speakerRule.isStable
            for event in history.events where (event["seq"]?.intValue ?? 0) <= Int64(ack) {
                let report = ["participant.active_speaker_changed", "participant.speaker_stopped"]
                if stable, let name = event["event"]?.stringValue, report.contains(name) { continue }
                self.ledger.record(event)
            }
            self.ledger.recorded(through: ack)
        }
        self.ledger.recorder = session
    }

    /// Takes the events the recorder received since the last call.
    func recordEvents() throws {
        guard let recorder = self.ledger.recorder else { return }
        for message in self.harness.drainWithPatches(recorder) where message["type"] == "event" {
            self.ledger.record(message)
        }
        self.ledger.recorded(through: UInt64(self.harness.sequence("r")))
    }

    /// An observer is about to receive event `sequence` (or is done up to just before it): it must have every
    /// event its mode takes since its last.
    func checkNothingSkipped(_ index: Int, before sequence: UInt64) throws {
        let observer = self.observers[index]
        guard sequence > 0 else { return }
        let from = max(observer.lastEvent, self.ledger.checkedThrough[observer.uid] ?? 0)
        let skipped = self.ledger.taken(by: observer.events, after: from, through: sequence - 1)
        if !skipped.isEmpty {
            throw self.fail("\(observer.uid) (events \(observer.events)) is at \(sequence) without events \(skipped)")
        }
        self.ledger.checkedThrough[observer.uid] = max(from, sequence - 1)
    }

    /// Every connected observer, drained, has each event its mode takes up to the room's sequence number (events go
    /// out at once, whatever the coalescing window).
    func checkObserversCaughtUp() throws {
        let sequence = UInt64(self.harness.sequence("r"))
        for index in self.observers.indices where self.observers[index].session != nil {
            try self.checkNothingSkipped(index, before: sequence + 1)
        }
    }

    // MARK: Resumes

    /// How a returning observer asks to resume: its roster's seq and, as the clients do, the highest seq it
    /// received; now and then as an older client would: its last event's, or nothing when that is not after its
    /// roster's.
    func resumeFields(for index: Int) -> [(String, JSONValue)] {
        let observer = self.observers[index]
        guard let store = observer.store else { return [] }
        var fields: [(String, JSONValue)] = [("resume", .int(Int64(store.sequence)))]
        switch self.random(3) {
        case 0:
            fields.append(("resumeEvents", .int(Int64(max(observer.lastEvent, store.sequence)))))
        case 1:
            fields.append(("resumeEvents", .int(Int64(observer.lastEvent))))
        default:
            if observer.lastEvent > store.sequence { fields.append(("resumeEvents", .int(Int64(observer.lastEvent)))) }
        }
        return fields
    }

    /// What the resume of an observer that joins again must come to; nil when it joins afresh. With a store that
    /// keeps every entry a resume must always recover; in memory, when its view at its roster's seq can be
    /// rebuilt (the retained log reaches it, or the view sent nothing since) and no entry its mode may take after
    /// its position was dropped.
    func resumeExpectation(for index: Int, resuming: Bool) -> ResumeExpectation? {
        let observer = self.observers[index]
        let acrossRestart = self.ledger.restarts > self.ledger.restartsSeen[observer.uid, default: 0]
        self.ledger.restartsSeen[observer.uid] = self.ledger.restarts
        guard resuming, let store = observer.store else { return nil }
        let gateway = self.harness.gateway
        let roster = store.sequence
        let position = max(roster, observer.lastEvent)
        let roomSequence = UInt64(self.harness.sequence("r"))
        let mustRecover: Bool
        if self.ledger.store != nil {
            mustRecover = true
        } else {
            let firstRetained = gateway.roomLog("r")?.firstSequence ?? 1
            let viewSequence = gateway.rooms["r"]?.channels[observer.spec]?.sequence
            let viewKnown = roster + 1 >= firstRetained || viewSequence.map { $0 <= roster } == true
            mustRecover =
                viewKnown && !self.ledger.mayNeedDropped(observer.events, after: position, firstRetained: firstRetained)
        }
        return ResumeExpectation(
            position: position, mustRecover: mustRecover,
            missedBeyondHistory: roomSequence > position + UInt64(gateway.configuration.history.maximumEntries),
            acrossRestart: acrossRestart)
    }

    /// A recovered resume ended with `resumed` at `sequence`: the observer has every event its mode takes through
    /// it (each replayed one was checked as it was applied).
    func finishRecovery(_ index: Int, resumedAt sequence: UInt64, _ expectation: ResumeExpectation) throws {
        try self.checkNothingSkipped(index, before: sequence + 1)
        self.observers[index].lastEvent = sequence
        if expectation.missedBeyondHistory {
            self.ledger.recoveredBeyondHistory[self.observers[index].events, default: 0] += 1
        }
        if expectation.acrossRestart { self.ledger.recoveredAcrossRestart += 1 }
    }

    /// A resume was answered with a fresh snapshot: only when what it needs is no longer retained.
    func acceptFreshSnapshot(_ index: Int, _ expectation: ResumeExpectation, answer: [JSONValue]) throws {
        if expectation.mustRecover {
            let observer = self.observers[index]
            throw self.fail(
                "\(observer.uid) (events \(observer.events), \(observer.spec)) got a fresh snapshot from position "
                    + "\(expectation.position) although everything it missed is retained: \(answer)")
        }
        self.ledger.freshSnapshots += 1
    }
}

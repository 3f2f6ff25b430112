import Testing

@testable import Rooms

/// The retained log as a ring: trimming at the retention drops the oldest entry without moving the others, and
/// every reader sees the same entries as before.
struct RoomLogTests {
    private static func event(_ index: Int) -> RoomEvent {
        .flagChanged(uid: "u-\(index % 7)", flag: .handRaised, value: index % 2 == 0)
    }

    /// Appends `count` events one at a time, trimming after each as the gateway does; time advances 1 ms each.
    private static func appendAndTrim(_ log: inout RoomLog, count: Int, from start: Int = 0) {
        for index in start..<(start + count) {
            _ = log.append(Self.event(index), time: Int64(index), actor: "u-\(index % 7)")
            log.trim(now: Int64(index))
        }
    }

    @Test(
        "Once the retention is reached, an append and its trim move no entry, whatever the retained count",
        arguments: [10, 100, 1000, 5000])
    func appendingAtTheRetentionMovesNothing(maximumEntries: Int) {
        var log = RoomLog(retention: HistoryRetention(maximumEntries: maximumEntries, maximumAgeMilliseconds: .max))
        Self.appendAndTrim(&log, count: maximumEntries)
        let relocatedWhileFilling = log.entries.relocatedElements
        let capacity = log.entries.capacity
        // Filling moved each entry a bounded number of times (doubling: fewer than one move per entry on average).
        #expect(relocatedWhileFilling < 2 * maximumEntries)
        // Ten times the retention more: every append now drops the oldest entry.
        Self.appendAndTrim(&log, count: 10 * maximumEntries, from: maximumEntries)
        #expect(log.entries.relocatedElements == relocatedWhileFilling, "appends at the retention moved entries")
        #expect(log.entries.capacity == capacity, "the buffer grew or shrank at a steady count")
        #expect(log.entries.capacity <= 2 * maximumEntries + 8)
        #expect(log.entries.count == maximumEntries)
        let sequences = log.entries.map(\.sequence)
        #expect(sequences == Array(UInt64(10 * maximumEntries + 1)...UInt64(11 * maximumEntries)))
    }

    @Test("Trimming hands over the dropped entries oldest first, and keeps the newest by count and by age")
    func trimHandsOverTheDroppedEntries() {
        var log = RoomLog(retention: HistoryRetention(maximumEntries: 5, maximumAgeMilliseconds: 100))
        for index in 0..<8 { _ = log.append(Self.event(index), time: Int64(index * 10), actor: nil) }
        var dropped: [UInt64] = []
        log.trim(now: 70) { dropped.append($0.sequence) }
        #expect(dropped == [1, 2, 3])
        #expect(log.entries.map(\.sequence) == [4, 5, 6, 7, 8])
        // Entries at 30 and 40 ms are more than 100 ms old at 145 ms.
        dropped = []
        log.trim(now: 145) { dropped.append($0.sequence) }
        #expect(dropped == [4, 5])
        #expect(log.entries.first?.sequence == 6)
        log.trim(now: 10_000)
        #expect(log.entries.isEmpty)
        #expect(log.lastSequence == 8)
    }

    @Test("When entries age out, the storage shrinks back instead of keeping its largest size")
    func storageShrinksWhenEntriesAgeOut() {
        var log = RoomLog(retention: HistoryRetention(maximumEntries: 1000, maximumAgeMilliseconds: 100))
        for index in 0..<500 { _ = log.append(Self.event(index), time: 0, actor: nil) }
        #expect(log.entries.capacity >= 500)
        log.trim(now: 50)
        #expect(log.entries.count == 500)
        log.trim(now: 10_000)
        #expect(log.entries.isEmpty)
        #expect(log.entries.capacity <= 8)
        _ = log.append(Self.event(0), time: 10_000, actor: nil)
        #expect(log.entries.map(\.sequence) == [501])
    }

    @Test("entries(after:) and retained(after:) across the ring's wrap: exact resumes, or nil when trimmed")
    func readersAcrossTheWrap() throws {
        var log = RoomLog(retention: HistoryRetention(maximumEntries: 6, maximumAgeMilliseconds: .max))
        Self.appendAndTrim(&log, count: 20)
        // Retained: 15...20, stored across the end of the buffer.
        #expect(log.entries(after: 20) == [])
        #expect(log.entries(after: 21) == nil)
        #expect(log.entries(after: 13) == nil, "seq 14 is no longer retained")
        let fromFourteen = try #require(log.entries(after: 14))
        #expect(fromFourteen.map(\.sequence) == [15, 16, 17, 18, 19, 20])
        #expect(try #require(log.entries(after: 17)).map(\.sequence) == [18, 19, 20])
        #expect(log.retained(after: 2).map(\.sequence) == [15, 16, 17, 18, 19, 20])
        #expect(log.retained(after: 18).map(\.sequence) == [19, 20])
        #expect(log.retained(after: 20).isEmpty)
        #expect(fromFourteen == Array(log.entries))
    }

    @Test(
        "Each event mode keeps the newest dropped entry it may take, so a mode that takes few resumes from further back"
    )
    func droppedEntriesPerEventMode() {
        var log = RoomLog(retention: HistoryRetention(maximumEntries: 4, maximumAgeMilliseconds: .max))
        let meeting = RoomEvent.meetingMessage(
            MeetingMessage(sessionID: "s", callType: "audio", sender: "u-a", text: "hi", isActive: true))
        let events: [RoomEvent] =
            [meeting, .mutedByModerator(uid: "u-b"), .unmuteRequested(uid: "u-c")] + (0..<8).map(Self.event)
        for (index, event) in events.enumerated() {
            _ = log.append(event, time: Int64(index), actor: "u-a")
            log.trim(now: Int64(index))
        }
        // Retained: 8...11 (hands). Dropped: the meeting message (1), a mute (2), an unmute request (3), hands.
        #expect(log.firstSequence == 8)
        #expect(log.droppedThrough(takenBy: .all) == 7)
        #expect(log.droppedThrough(takenBy: .notable) == 3)
        #expect(log.droppedThrough(takenBy: .none) == 3, "an unmute request goes to its target in any mode")
        // A log that starts after a checkpoint knows nothing of what came before it, in any mode.
        let loaded = RoomLog(retention: HistoryRetention(), after: 50)
        #expect([EventMode.all, .notable, .none].map { loaded.droppedThrough(takenBy: $0) } == [50, 50, 50])
    }

    @Test("A copy of the log keeps its entries while the original goes on trimming")
    func copiesAreValues() {
        var log = RoomLog(retention: HistoryRetention(maximumEntries: 4, maximumAgeMilliseconds: .max))
        Self.appendAndTrim(&log, count: 6)
        let copy = log
        Self.appendAndTrim(&log, count: 3, from: 6)
        #expect(copy.entries.map(\.sequence) == [3, 4, 5, 6])
        #expect(log.entries.map(\.sequence) == [6, 7, 8, 9])
        #expect(copy.entries != log.entries)
    }

    /// Counts the instances alive, to check that the ring releases what it drops and what it holds at the end.
    private final class Tracked {
        nonisolated(unsafe) static var alive = 0
        init() { Self.alive += 1 }
        deinit { Self.alive -= 1 }
    }

    @Test("The ring releases each element it drops, each one a copy replaced, and the rest when it goes away")
    func ringBufferReleasesItsElements() {
        do {
            var ring = RingBuffer<Tracked>()
            for _ in 0..<100 { ring.append(Tracked()) }
            #expect(Tracked.alive == 100)
            for _ in 0..<60 { ring.popFirst() }
            #expect(Tracked.alive == 40)
            for _ in 0..<30 { ring.append(Tracked()) }
            var copy = ring
            copy.popFirst()
            // The copy has its own buffer now; the element it dropped is still in the original.
            #expect(Tracked.alive == 70)
            #expect(copy.count == 69 && ring.count == 70)
            ring.removeAll()
            #expect(Tracked.alive == 69)
        }
        #expect(Tracked.alive == 0)
    }

    @Test("The ring buffer is a queue: appends at the back, pops from the front, equal by contents")
    func ringBufferIsAQueue() {
        var ring = RingBuffer<Int>()
        var reference: [Int] = []
        var random = 0x9E37_79B9
        for step in 0..<2_000 {
            random = random &* 1_103_515_245 &+ 12_345
            if (random >> 16) % 3 == 0, !reference.isEmpty {
                #expect(ring.popFirst() == reference.removeFirst())
            } else {
                ring.append(step)
                reference.append(step)
            }
            #expect(ring.count == reference.count)
            #expect(ring.first == reference.first && ring.last == reference.last)
        }
        #expect(Array(ring) == reference)
        var other = RingBuffer<Int>()
        for value in reference { other.append(value) }
        #expect(other == ring)
        ring.removeAll()
        #expect(ring.isEmpty && ring.capacity == 0 && ring.popFirst() == nil)
    }
}

import TestSupport
import Testing

@testable import Rooms

@Suite struct ResumePropertyTests {
    static let callsPerSlice = 100

    /// 400 seeded calls with a short history, bursts of traffic longer than it and, every other call, restarts on
    /// a store, in four slices: every resume in every event mode is exact, recovered whenever what it missed is
    /// retained, and never partly.
    @Test(arguments: 0..<4)
    func resumesInEveryEventModeAreExactBeyondTheHistoryAndAcrossRestarts(slice: Int) throws {
        let count = Self.callsPerSlice
        var beyondHistory: [EventMode: Int] = [:]
        var acrossRestart = 0
        var freshSnapshots = 0
        var restarts = 0
        for index in 0..<count {
            let seed = UInt64(100_000 + slice * count + index)
            let call = try RandomRosterCall(seed: seed, resumeFocus: true)
            var lengths = SplitMix64(seed: seed ^ 0x5A5A)
            try call.run(steps: 30 + Int(lengths.next() % 51))
            beyondHistory.merge(call.ledger.recoveredBeyondHistory, uniquingKeysWith: +)
            acrossRestart += call.ledger.recoveredAcrossRestart
            freshSnapshots += call.ledger.freshSnapshots
            restarts += call.ledger.restarts
        }
        // Resumes recovered after more entries than the history keeps, in each mode, and across restarts; and
        // fresh snapshots where what was missed was no longer retained.
        for mode in [EventMode.all, .notable, .none] {
            #expect(beyondHistory[mode, default: 0] > 0, "no recovery beyond the history in mode \(mode)")
        }
        #expect(restarts > count / 2)
        #expect(acrossRestart > 0)
        #expect(freshSnapshots > 0)
    }
}

import Rooms
import Testing

@testable import RollcallServer

@Suite struct SessionTableTests {
    @Test func findsWhatWasInsertedAndForgetsWhatWasRemoved() {
        var table = SessionTable<Int>()
        for raw in UInt64(0)..<10 { table.insert(Int(raw) * 10, for: SessionID(raw)) }
        #expect(table.count == 10)
        #expect(table[SessionID(0)] == 0)
        #expect(table[SessionID(7)] == 70)
        #expect(table[SessionID(10)] == nil)
        table.insert(700, for: SessionID(7))
        #expect(table[SessionID(7)] == 700)
        #expect(table.count == 10)
        #expect(table.removeValue(for: SessionID(7)) == 700)
        #expect(table.removeValue(for: SessionID(7)) == nil)
        #expect(table[SessionID(7)] == nil)
        #expect(table.count == 9)
    }

    /// Random inserts and removals (a fixed seed) against a dictionary, through several growths and with ids that
    /// collide in the table, so removal by backward shift is exercised across wrapped probe runs.
    @Test func agreesWithADictionaryUnderChurn() {
        var table = SessionTable<UInt64>(minimumCapacity: 16)
        var reference: [UInt64: UInt64] = [:]
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for step in 0..<20_000 {
            // Sequential ids in a sliding window, like sessions that open and close.
            let raw = UInt64(step / 4) &+ next() % 300
            if next() % 3 == 0 {
                #expect(table.removeValue(for: SessionID(raw)) == reference.removeValue(forKey: raw))
            } else {
                table.insert(raw &* 3, for: SessionID(raw))
                reference[raw] = raw &* 3
            }
            #expect(table.count == reference.count)
        }
        for raw in UInt64(0)..<5_400 {
            #expect(table[SessionID(raw)] == reference[raw])
        }
        for raw in Array(reference.keys) { table.removeValue(for: SessionID(raw)) }
        #expect(table.count == 0)
        #expect(table[SessionID(1)] == nil)
    }
}

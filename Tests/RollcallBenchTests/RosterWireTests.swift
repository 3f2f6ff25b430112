import Testing

@testable import RollcallBench

/// The roster's size on the wire, as `rollcall bench roster-wire` measures it: bytes, not time.
@Suite struct RosterWireTests {
    @Test func aMuteInAThousandParticipantRoomIsAPatchOfAtMost96Bytes() throws {
        let report = try RosterWireBenchmark.run(participants: 1000, stormJoins: 10, stormMilliseconds: 100)
        #expect(report.mutePatchFrames == 1)
        #expect(report.mutePatchObjectBytes > 0 && report.mutePatchObjectBytes <= 96)
        // The snapshot carries everyone, a few hundred bytes each; the patch does not grow with the room.
        #expect(report.snapshotBytes > 1000 * 300)
    }

    @Test func aJoinStormCoalescesIntoFewerFramesThanJoins() throws {
        let report = try RosterWireBenchmark.run(participants: 10, stormJoins: 200, stormMilliseconds: 200)
        #expect(report.stormFrames < report.stormFramesWithoutCoalescing)
        #expect(report.stormFramesWithoutCoalescing == 200)
    }
}

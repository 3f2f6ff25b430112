import Testing

@testable import RollcallCLI

@Suite struct RoomThreadsBenchmarkTests {
    @Test("The in-process rooms-threads benchmark delivers every message to its room's observers and publisher")
    func everyMessageIsDelivered() throws {
        for threads in [1, 2] {
            let report = try RoomThreadsBenchmark.run(threads: threads, rooms: 12, subscribers: 3, messages: 5)
            #expect(report.published == 60)
            // Three observers, the publisher as a member of the group, and the publisher's ack.
            #expect(report.deliveries == 60 * 5)
            #expect(report.cpuSeconds.count == threads)
        }
    }
}

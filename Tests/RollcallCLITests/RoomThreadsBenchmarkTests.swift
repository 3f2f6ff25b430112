import Foundation
import Storage
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

    @Test("With a store every rooms thread commits its rooms' messages to the one file", arguments: [1, 2])
    func withAStoreEveryMessageIsCommitted(threads: Int) throws {
        let path = NSTemporaryDirectory() + "rollcall-bench-\(UUID().uuidString).db"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let report = try RoomThreadsBenchmark.run(
            threads: threads, rooms: 12, subscribers: 3, messages: 5, storePath: path, batch: 7)
        #expect(report.store && report.deliveries == 60 * 5)
        let meetings = try SQLiteWebhookLog(path: path).items(after: 0, limit: 10_000).filter {
            $0.eventName == "meeting.message"
        }
        #expect(meetings.count == 60)
        #expect(Set(meetings.map(\.room)).count == 12)
    }
}

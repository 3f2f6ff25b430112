import Foundation
import RollcallClient
import Testing

/// A subscription the gateway takes out of its room ends with a typed reason, and the client does not join the
/// room again on its own.
@Suite struct RollcallUnsubscribedLiveTests {
    /// Every change a subscription published, for checking from the test.
    final class Changes: @unchecked Sendable {
        private let lock = NSLock()
        private var storage: [RoomChange] = []

        func append(_ change: RoomChange) { self.lock.withLock { self.storage.append(change) } }

        var all: [RoomChange] { self.lock.withLock { self.storage } }
    }

    @Test func aDeviceJoiningFromAnotherWindowEndsTheFirstWithoutAFightOverTheRoom() async throws {
        let gateway = try LiveGateway()
        defer { gateway.stop() }
        let first = try gateway.client("alice", rooms: ["standup": .participant])
        let second = try gateway.client("alice", rooms: ["standup": .participant])
        try await first.connect()
        try await second.connect()
        let firstRoom = try await first.join(room: "standup")
        let firstChanges = Changes()
        firstRoom.onChange { firstChanges.append($0) }
        let secondRoom = try await second.join(room: "standup")
        let secondChanges = Changes()
        secondRoom.onChange { secondChanges.append($0) }

        let told = await eventually { !firstRoom.isActive }
        #expect(told)
        #expect(firstChanges.all.contains(.unsubscribed(.replaced)))
        guard case .ended(let error)? = firstChanges.all.last else {
            Issue.record("no end after the unsubscribe: \(firstChanges.all)")
            return
        }
        #expect(error?.unsubscribeReason == .replaced)

        // The first window's connection drops and comes back: it does not take the room back.
        let reconnected = Changes()
        first.onStatusChange { status in
            if status == .connected { reconnected.append(.connectionLost) }
        }
        first.dropConnection()
        let back = await eventually { !reconnected.all.isEmpty && first.status == .connected }
        #expect(back)
        try await first.ping()
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(secondRoom.isActive)
        #expect(!secondChanges.all.contains { if case .unsubscribed = $0 { return true } else { return false } })
        #expect(secondRoom.participant("alice")?.state == "joined")
        await first.close()
        await second.close()
    }
}

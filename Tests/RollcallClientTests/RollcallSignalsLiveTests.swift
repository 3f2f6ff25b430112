import Foundation
import JSONCoding
import RollcallClient
import XCTest

/// Ephemeral signals through the Swift client against a live gateway.
final class RollcallSignalsLiveTests: XCTestCase {
    private let room = "standup"

    /// Collects the signals a subscription hears.
    private final class Inbox: @unchecked Sendable {
        private let lock = NSLock()
        private var signals: [RollcallSignal] = []

        func add(_ signal: RollcallSignal) { self.lock.withLock { self.signals.append(signal) } }
        var all: [RollcallSignal] { self.lock.withLock { self.signals } }
    }

    func testSignalsReachTheRoomOrOneParticipantAndObserversMayNotSend() async throws {
        let gateway = try LiveGateway()
        defer { gateway.stop() }
        let alice = try gateway.client("alice", groups: [self.room])
        let bob = try gateway.client("bob", groups: [self.room])
        let vic = try gateway.client("vic", rooms: [self.room: .viewer])
        for client in [alice, bob, vic] { try await client.connect() }
        let aliceRoom = try await alice.join(room: self.room)
        let bobRoom = try await bob.join(room: self.room)
        let vicRoom = try await vic.join(room: self.room, as: .observer)
        let (aliceBox, bobBox, vicBox) = (Inbox(), Inbox(), Inbox())
        aliceRoom.onSignal { aliceBox.add($0) }
        bobRoom.onSignal { bobBox.add($0) }
        vicRoom.onSignal { vicBox.add($0) }
        let before = try await aliceRoom.setAttributes(["mark": "0"])

        try await aliceRoom.signal("reaction", data: ["emoji": "🎉"])
        let heard = await eventually { bobBox.all.count == 1 && vicBox.all.count == 1 }
        XCTAssertTrue(heard, "Bob and Vic hear Alice's reaction")
        for signal in bobBox.all + vicBox.all {
            XCTAssertEqual(signal.from, "alice")
            XCTAssertEqual(signal.kind, "reaction")
            XCTAssertEqual(signal.data, ["emoji": "🎉"])
            XCTAssertNil(signal.to)
        }
        try await bobRoom.signal("nudge", to: "alice")
        let nudged = await eventually { aliceBox.all.count == 1 }
        XCTAssertTrue(nudged, "Alice hears Bob's nudge")
        XCTAssertEqual(aliceBox.all.first?.to, "alice")
        XCTAssertEqual(aliceBox.all.first?.data, .null)
        do {
            try await vicRoom.signal("reaction", data: ["emoji": "👋"])
            XCTFail("an observer sent a signal")
        } catch {
            XCTAssertEqual(error.serverErrorCode, .forbidden)
        }
        // No seq was taken by the signals.
        let after = try await aliceRoom.setAttributes(["mark": "1"])
        XCTAssertEqual(after.sequence, before.sequence + 1)
        XCTAssertEqual(bobBox.all.count, 1)
        for client in [alice, bob, vic] { await client.close() }
    }
}

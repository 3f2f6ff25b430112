import Foundation
import JSONCoding
import RollcallClient
import XCTest

/// The room lock and version-checked writes through the Swift client against a live gateway.
final class RollcallControlsLiveTests: XCTestCase {
    private let room = "standup"

    func testALockedRoomRefusesANewJoinAndAStaleVersionIsAConflict() async throws {
        let gateway = try LiveGateway()
        defer { gateway.stop() }
        let alice = try gateway.client("alice", rooms: [self.room: .moderator])
        let bob = try gateway.client("bob", groups: [self.room])
        let carol = try gateway.client("carol", groups: [self.room])
        for client in [alice, bob, carol] { try await client.connect() }
        let aliceRoom = try await alice.join(room: self.room)
        let bobRoom = try await bob.join(room: self.room)
        XCTAssertEqual(aliceRoom.rights?.bypassesLock, true)
        XCTAssertEqual(bobRoom.rights?.bypassesLock, false)
        XCTAssertEqual(aliceRoom.rights?.actions.contains("lock"), true)

        // Bob may not lock; Alice may, and Carol's join is then refused.
        do {
            try await bobRoom.lock()
            XCTFail("a participant locked the room")
        } catch {
            XCTAssertEqual(error.serverErrorCode, .forbidden)
        }
        let lock = try await aliceRoom.lock(reason: "starting")
        XCTAssertTrue(lock.changed)
        let locked = await eventually { bobRoom.isLocked }
        XCTAssertTrue(locked, "Bob's roster shows the lock")
        do {
            _ = try await carol.join(room: self.room)
            XCTFail("a new join got into a locked room")
        } catch {
            XCTAssertEqual(error.serverErrorCode, .roomLocked)
        }
        let unlock = try await aliceRoom.unlock()
        XCTAssertTrue(unlock.changed)
        _ = try await carol.join(room: self.room)

        // A version-checked write: the ack's sequence number is current, the one before it is stale.
        let first = try await aliceRoom.setMetadata(["topic": "Q3"], ifSeq: aliceRoom.rosterSequence)
        XCTAssertTrue(first.changed)
        do {
            try await aliceRoom.setMetadata(["topic": "Q4"], ifSeq: first.sequence - 1)
            XCTFail("a stale version was taken")
        } catch {
            XCTAssertEqual(error.serverErrorCode, .conflict)
        }
        let current = try await aliceRoom.setMetadata(["topic": "Q4"], ifSeq: first.sequence)
        XCTAssertTrue(current.changed)
        let shown = await eventually { bobRoom.roomState["metadata"]?["topic"] == "Q4" }
        XCTAssertTrue(shown, "the last write is the one in the roster")
        do {
            try await aliceRoom.setPermissions(of: "bob", share: false, ifSeq: 0)
            XCTFail("a stale version of Bob's permissions was taken")
        } catch {
            XCTAssertEqual(error.serverErrorCode, .conflict)
        }
        for client in [alice, bob, carol] { await client.close() }
    }

    func testAWaitingJoinIsToldItsPlaceAndReturnsOnceAdmittedOrFailsWhenDenied() async throws {
        let gateway = try LiveGateway()
        defer { gateway.stop() }
        let alice = try gateway.client("alice", rooms: [self.room: .moderator])
        let carol = try gateway.client("carol", groups: [self.room])
        let dave = try gateway.client("dave", groups: [self.room])
        for client in [alice, carol, dave] { try await client.connect() }
        let aliceRoom = try await alice.join(room: self.room)
        XCTAssertEqual(aliceRoom.rights?.actions.contains("admit"), true)
        try await aliceRoom.requireAdmission()
        let positions = Positions()
        let room = self.room
        let carolJoin = Task { try await carol.join(room: room, onWaiting: { positions.add($0) }) }
        let waits = await eventually { positions.last == 1 }
        XCTAssertTrue(waits, "Carol was told she waits first")
        let listed = try await aliceRoom.waiting()
        XCTAssertEqual(listed.entries.map(\.uid), ["carol"])
        XCTAssertNil(listed.next)
        let counted = await eventually { aliceRoom.waitingCount == 1 && aliceRoom.requiresAdmission }
        XCTAssertTrue(counted, "Alice's roster counts who waits")
        try await aliceRoom.admit("carol")
        let carolRoom = try await carolJoin.value
        XCTAssertNotNil(carolRoom.participant("carol"))
        XCTAssertNil(carolRoom.waitingPosition)

        let daveJoin = Task { try await dave.join(room: room) }
        let daveWaits = await eventually { aliceRoom.waitingCount == 1 }
        XCTAssertTrue(daveWaits)
        try await aliceRoom.deny("dave", reason: "not on the list")
        do {
            _ = try await daveJoin.value
            XCTFail("a denied join got in")
        } catch let error as RollcallError {
            XCTAssertEqual(error.serverErrorCode, .admissionDenied)
        }
        for client in [alice, carol, dave] { await client.close() }
    }
}

/// The positions a waiting join was told, from the client's thread.
private final class Positions: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = []

    func add(_ position: Int) { self.lock.withLock { self.values.append(position) } }

    var last: Int? { self.lock.withLock { self.values.last } }
}

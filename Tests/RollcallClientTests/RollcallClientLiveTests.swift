import EventIO
import Foundation
import JSONCoding
import RollcallClient
import TokenAuth
import XCTest

final class RollcallClientLiveTests: XCTestCase {
    private let room = "standup"

    /// Connects Alice (moderator) and Bob (participant) and joins both to the room.
    private func joinBoth(
        _ gateway: LiveGateway,
        secure: Bool = false,
        compression: Bool = true,
        authentication: RollcallAuthentication = .queryParameter
    ) async throws -> (Rollcall, RoomSubscription, Rollcall, RoomSubscription) {
        let alice = try gateway.client(
            "alice", rooms: [self.room: .moderator], secure: secure,
            compression: compression, authentication: authentication)
        let bob = try gateway.client(
            "bob", groups: [self.room], secure: secure, compression: compression,
            authentication: authentication)
        try await alice.connect()
        try await bob.connect()
        let aliceRoom = try await alice.join(room: self.room, callType: "video")
        let bobRoom = try await bob.join(room: self.room)
        // The join's answer says what each may do.
        XCTAssertEqual(aliceRoom.rights?.isOperator, true)
        XCTAssertEqual(aliceRoom.rights?.actions.contains("mute"), true)
        XCTAssertEqual(bobRoom.rights?.isOperator, false)
        XCTAssertEqual(bobRoom.rights?.actions, [])
        XCTAssertEqual(bobRoom.rights?.mayUnmute, true)
        return (alice, aliceRoom, bob, bobRoom)
    }

    /// Bob mutes and raises his hand; Alice's roster converges to Bob's.
    private func checkConvergence(_ aliceRoom: RoomSubscription, _ bobRoom: RoomSubscription) async throws {
        let bothIn = await eventually { aliceRoom.participants.count == 2 && bobRoom.participants.count == 2 }
        XCTAssertTrue(bothIn, "both participants appear in both rosters")
        try await bobRoom.setAudioMuted(true)
        try await bobRoom.raiseHand()
        let converged = await eventually {
            let bob = aliceRoom.participant("bob")
            return bob?.audioMuted == true && bob?.handRaised == true
                && aliceRoom.participants == bobRoom.participants
        }
        XCTAssertTrue(converged, "Alice sees Bob muted with his hand up: \(aliceRoom.participants)")
        XCTAssertEqual(aliceRoom.participants.map(\.id), ["alice", "bob"], "join order")
        XCTAssertEqual(aliceRoom.roster?.checksum, aliceRoom.roster?.serverChecksum)
    }

    func testTwoClientsConvergeWithCompression() async throws {
        let gateway = try LiveGateway(compression: true)
        defer { gateway.stop() }
        let (alice, aliceRoom, bob, bobRoom) = try await self.joinBoth(gateway)
        XCTAssertTrue(alice.isCompressionNegotiated)
        XCTAssertEqual(alice.uid, "alice")
        try await self.checkConvergence(aliceRoom, bobRoom)

        let muted = try await alice.query("muted", ["room": .string(self.room)])
        XCTAssertEqual(muted["uids"], ["bob"])
        let ack = try await aliceRoom.perform(action: "lower_hand", target: "bob", reason: "answered")
        XCTAssertTrue(ack.changed)
        let lowered = await eventually { bobRoom.participant("bob")?.handRaised == false }
        XCTAssertTrue(lowered, "Bob's own roster shows his hand lowered by the moderator")
        try await alice.ping()
        await alice.close()
        await bob.close()
        XCTAssertEqual(
            alice.status, .closed(RollcallCloseInfo(code: 1000, reason: "", wasClean: true, initiatedLocally: true)))
    }

    func testTwoClientsConvergeWithoutCompressionAuthenticatingByMessage() async throws {
        let gateway = try LiveGateway(compression: false)
        defer { gateway.stop() }
        let (alice, aliceRoom, bob, bobRoom) = try await self.joinBoth(
            gateway, compression: true, authentication: .message
        )
        XCTAssertFalse(alice.isCompressionNegotiated)
        try await self.checkConvergence(aliceRoom, bobRoom)
        await alice.close()
        await bob.close()
    }

    func testClientWithoutCompressionOfferAuthenticatingByHeader() async throws {
        let gateway = try LiveGateway(compression: true)
        defer { gateway.stop() }
        let (alice, aliceRoom, bob, bobRoom) = try await self.joinBoth(
            gateway, compression: false, authentication: .header
        )
        XCTAssertFalse(bob.isCompressionNegotiated)
        try await self.checkConvergence(aliceRoom, bobRoom)
        await alice.close()
        await bob.close()
    }

    func testSecureWebSocket() async throws {
        let gateway = try LiveGateway(compression: true, tls: true)
        defer { gateway.stop() }
        let (alice, aliceRoom, bob, bobRoom) = try await self.joinBoth(gateway, secure: true)
        XCTAssertTrue(alice.isCompressionNegotiated)
        try await self.checkConvergence(aliceRoom, bobRoom)
        await alice.close()
        await bob.close()
    }

    func testForcedDisconnectReconnectsAndRecovers() async throws {
        let gateway = try LiveGateway()
        defer { gateway.stop() }
        let (alice, aliceRoom, bob, bobRoom) = try await self.joinBoth(gateway)
        try await self.checkConvergence(aliceRoom, bobRoom)
        let resumed = Resumptions()
        aliceRoom.onChange { change in
            if case .resumed(let recovered) = change { resumed.append(recovered) }
        }
        alice.dropConnection()
        let back = await eventually { resumed.values.count >= 1 && alice.status == .connected }
        XCTAssertTrue(back, "Alice reconnected and resumed (status \(alice.status))")
        XCTAssertEqual(resumed.values.first, true)
        XCTAssertEqual(aliceRoom.recovered, true)
        // Changes after the reconnect reach Alice again, and both rosters agree.
        try await bobRoom.setVideoPaused(true)
        let converged = await eventually {
            aliceRoom.participant("bob")?.videoPaused == true && aliceRoom.participant("alice")?.state == "joined"
                && aliceRoom.participants == bobRoom.participants
        }
        XCTAssertTrue(converged, "Alice \(aliceRoom.participants) Bob \(bobRoom.participants)")
        XCTAssertGreaterThanOrEqual(aliceRoom.lastEventSequence, aliceRoom.rosterSequence)
        await alice.close()
        await bob.close()
    }

    func testChangesAsAsyncSequence() async throws {
        let gateway = try LiveGateway()
        defer { gateway.stop() }
        let (alice, aliceRoom, bob, bobRoom) = try await self.joinBoth(gateway)
        let changes = aliceRoom.changes
        let consumer = Task { () -> [RoomChange] in
            var seen: [RoomChange] = []
            for await change in changes {
                seen.append(change)
                // Bob's join and his screen share may reach Alice in one coalesced patch: added or updated.
                let aboutBob: Bool
                switch change {
                case .participantUpdated("bob"), .participantAdded("bob"): aboutBob = true
                default: aboutBob = false
                }
                if aboutBob, aliceRoom.participant("bob")?.presenting == true { break }
            }
            return seen
        }
        let timeout = Task {
            try await Task.sleep(nanoseconds: 10_000_000_000)
            consumer.cancel()
        }
        try await bobRoom.setPresenting(true)
        let seen = await consumer.value
        timeout.cancel()
        XCTAssertTrue(
            seen.contains(.participantUpdated(uid: "bob")) || seen.contains(.participantAdded(uid: "bob")),
            "changes: \(seen)"
        )
        XCTAssertEqual(aliceRoom.participant("bob")?.presenting, true)
        XCTAssertTrue(
            seen.contains {
                if case .eventReceived(let event) = $0 {
                    return event.name == "participant.screen_share_started"
                } else {
                    return false
                }
            })
        await alice.close()
        await bob.close()
    }

    func testNotGroupMemberIsSurfaced() async throws {
        let gateway = try LiveGateway()
        defer { gateway.stop() }
        let carol = try gateway.client("carol", rooms: ["other-room": .participant])
        try await carol.connect()
        do {
            _ = try await carol.join(room: self.room)
            XCTFail("joining a room outside the token succeeded")
        } catch {
            XCTAssertEqual(error.serverCode, "ERR_NOT_GROUP_MEMBER")
        }
        XCTAssertNil(carol.rooms[self.room])
        await carol.close()
    }

    func testBadTokenFailsConnect() async throws {
        let gateway = try LiveGateway()
        defer { gateway.stop() }
        let endpoint = try RollcallEndpoint(url: "ws://127.0.0.1:\(gateway.address.port)/v1/ws")
        let client = Rollcall(configuration: RollcallClientConfiguration(endpoint: endpoint, token: "not.a.token"))
        do {
            try await client.connect()
            XCTFail("a bad token connected")
        } catch {
            XCTAssertEqual(error.serverCode, "ERR_UNAUTHORIZED")
        }
        await client.close()
    }
}

/// Collects resume results from the client's thread.
final class Resumptions: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Bool] = []

    func append(_ value: Bool) { self.lock.withLock { self.storage.append(value) } }

    var values: [Bool] { self.lock.withLock { self.storage } }
}

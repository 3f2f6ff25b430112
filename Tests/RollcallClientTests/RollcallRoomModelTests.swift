import Foundation
import JSONCoding
import Observation
import RollcallClient
import Testing

/// The observable room model SwiftUI binds to, over a scripted gateway: its mutations happen on the main actor, and
/// a patch is one observed change of each property it alters, however many participants it touches.
@MainActor
@Suite struct RollcallRoomModelTests {
    nonisolated private static let bob: JSONValue = [
        "uid": "bob", "name": "Bob", "role": "participant", "order": 0, "audioMuted": false,
    ]
    nonisolated private static let roster: JSONObject = [
        "room": ["callType": "video", "participantCount": 1], "participants": ["bob": bob],
    ]

    private func connectedRoom(_ log: TransportLog) async throws -> (Rollcall, RoomSubscription) {
        let client = Rollcall(
            configuration: RollcallClientConfiguration(
                endpoint: try RollcallEndpoint(url: "wss://rollcall.example.com/v1/ws"), token: "token",
                transport: { request in
                    let transport = ScriptedTransport(request: request, roster: Self.roster, sequence: 4)
                    log.append(transport)
                    return transport
                },
                reconnect: .never, requestTimeout: 5))
        try await client.connect()
        return (client, try await client.join(room: "standup"))
    }

    /// Sends a patch from `from` to `seq` whose checksum is the roster it leads to.
    private func push(
        _ transport: ScriptedTransport, from: Int64, seq: Int64, patch: JSONObject, leadingTo roster: JSONObject
    ) {
        transport.push([
            "type": "patch", "room": "standup", "from": .int(from), "seq": .int(seq), "patch": .object(patch),
            "checksum": .string(RosterChecksum.hex(of: roster)),
        ])
    }

    /// Waits until the condition holds, then a little longer, so that anything else the client's thread handed to
    /// the main actor for the same message has run too.
    private func settled(_ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && !condition() {
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        try? await Task.sleep(nanoseconds: 200_000_000)
        return condition()
    }

    @Test func aPatchTouchingThreeParticipantsAndTheRoomIsOneObservedChangeOfEach() async throws {
        let log = TransportLog()
        let (client, room) = try await self.connectedRoom(log)
        let model = RollcallRoomModel(room)
        #expect(model.participants.map(\.id) == ["bob"])
        #expect(model.rosterSequence == 4)
        #expect(model.rights == room.rights)

        let participantChanges = ObservationCounter { _ = model.participants }
        let roomChanges = ObservationCounter { _ = model.roomState }
        let carol: JSONValue = ["uid": "carol", "name": "Carol", "role": "participant", "order": 1]
        let dave: JSONValue = ["uid": "dave", "name": "Dave", "role": "moderator", "order": 2]
        let mutedBob: JSONValue = [
            "uid": "bob", "name": "Bob", "role": "participant", "order": 0, "audioMuted": true,
        ]
        let after: JSONObject = [
            "room": ["callType": "video", "participantCount": 3],
            "participants": ["bob": mutedBob, "carol": carol, "dave": dave],
        ]
        self.push(
            log.all[0], from: 4, seq: 7,
            patch: [
                "room": ["participantCount": 3],
                "participants": ["bob": ["audioMuted": true], "carol": carol, "dave": dave],
            ],
            leadingTo: after)
        #expect(await self.settled { model.rosterSequence == 7 })
        #expect(model.participants.map(\.id) == ["bob", "carol", "dave"])
        #expect(model.participant("bob")?.audioMuted == true)
        #expect(model.roomState["participantCount"] == 3)
        #expect(participantChanges.count == 1)
        #expect(roomChanges.count == 1)
        #expect(participantChanges.onMainActor && roomChanges.onMainActor)

        // A patch of the room entry alone leaves the participants unobserved.
        var recording = after
        recording["room"] = ["callType": "video", "participantCount": 3, "recording": true]
        self.push(log.all[0], from: 7, seq: 8, patch: ["room": ["recording": true]], leadingTo: recording)
        #expect(await self.settled { model.rosterSequence == 8 })
        #expect(model.roomState["recording"] == true)
        #expect(participantChanges.count == 1)
        #expect(roomChanges.count == 2)
        await client.close()
    }

    @Test func theModelFollowsEventsADropAndTheEnd() async throws {
        let log = TransportLog()
        let (client, room) = try await self.connectedRoom(log)
        let model = RollcallRoomModel(room)
        log.all[0].push([
            "type": "event", "room": "standup", "seq": 5, "event": "participant.hand_raised", "uid": "bob",
            "actor": "bob", "time": 1_700_000_000_000,
        ])
        #expect(await self.settled { model.lastEvent?.sequence == 5 })
        #expect(model.lastEvent?.name == "participant.hand_raised")
        #expect(!model.isReconnecting && !model.hasEnded)

        log.all[0].closeFromServer(code: 4003, reason: "removed")
        #expect(await self.settled { model.hasEnded })
        #expect(!model.isReconnecting)
        await client.close()
    }
}

/// Counts how often an observed read's values change, re-arming at each change; records whether every change came
/// on the main actor, whose executor is the main dispatch queue (on Linux too, where that queue's blocks may run
/// on another thread than the process's first).
private final class ObservationCounter: @unchecked Sendable {
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()
    private let lock = NSLock()
    private var changes = 0
    private var allOnMainActor = true
    private let read: @Sendable () -> Void

    @MainActor init(_ read: @escaping @MainActor () -> Void) {
        self.read = { MainActor.assumeIsolated { read() } }
        self.arm()
    }

    var count: Int { self.lock.withLock { self.changes } }
    var onMainActor: Bool { self.lock.withLock { self.allOnMainActor } }

    private func arm() {
        withObservationTracking {
            self.read()
        } onChange: { [self] in
            let main = DispatchQueue.getSpecific(key: Self.mainQueueKey) == true
            self.lock.withLock {
                self.changes += 1
                self.allOnMainActor = self.allOnMainActor && main
            }
            // Re-armed at once, so a second change in the same turn of the main actor counts too.
            self.arm()
        }
    }
}

import Foundation
import JSONCoding
import RollcallClient
import XCTest

/// The client over a transport it did not make: what an app on another platform supplies through the
/// configuration. No sockets: `ScriptedTransport` plays the gateway.
final class RollcallTransportTests: XCTestCase {
    private static let roster: JSONObject = [
        "room": ["callType": "video", "participantCount": 1],
        "participants": [
            "bob": ["uid": "bob", "name": "Bob", "role": "participant", "order": 0, "audioMuted": false]
        ],
    ]

    private func client(
        log: TransportLog,
        authentication: RollcallAuthentication = .queryParameter,
        tokenProvider: RollcallTokenProvider? = nil
    ) throws -> Rollcall {
        let configuration = RollcallClientConfiguration(
            endpoint: try RollcallEndpoint(url: "wss://rollcall.example.com/v1/ws"),
            token: "first-token",
            tokenProvider: tokenProvider,
            authentication: authentication,
            device: "phone",
            transport: { request in
                let transport = ScriptedTransport(request: request, roster: Self.roster, sequence: 4)
                log.append(transport)
                return transport
            },
            reconnect: RollcallReconnectPolicy(maximumAttempts: 3, initialDelay: 0.01, maximumDelay: 0.05),
            requestTimeout: 5
        )
        return Rollcall(configuration: configuration)
    }

    func testRoomsResumeOverASuppliedTransportWithTheProvidersToken() async throws {
        let log = TransportLog()
        let provided = Resumptions()
        let client = try self.client(log: log) {
            provided.append(true)
            return "second-token"
        }
        try await client.connect()
        XCTAssertEqual(client.uid, "bob")
        XCTAssertEqual(log.all.first?.request.url, "wss://rollcall.example.com/v1/ws?token=first-token")
        let room = try await client.join(room: "standup")
        XCTAssertEqual(room.participants.map(\.id), ["bob"])
        XCTAssertEqual(room.rosterSequence, 4)
        let join = try XCTUnwrap(log.all.first?.sent.first)
        XCTAssertEqual(join["device"], "phone")
        XCTAssertNil(join["resume"])

        // A patch the transport hands over is applied and checked.
        var muted = Self.roster
        muted["participants"] = [
            "bob": ["uid": "bob", "name": "Bob", "role": "participant", "order": 0, "audioMuted": true]
        ]
        log.all[0].push([
            "type": "patch", "room": "standup", "from": 4, "seq": 6,
            "patch": ["participants": ["bob": ["audioMuted": true]]],
            "checksum": .string(RosterChecksum.hex(of: muted)),
        ])
        let patched = await eventually { room.participant("bob")?.audioMuted == true }
        XCTAssertTrue(patched)
        XCTAssertEqual(room.rosterSequence, 6)

        // The transport drops: a new one is made with the provider's token, and the room rejoins with resume.
        let resumed = Resumptions()
        room.onChange { change in
            if case .resumed(let recovered) = change { resumed.append(recovered) }
        }
        log.all[0].abort()
        let back = await eventually { resumed.values == [true] && client.status == .connected }
        XCTAssertTrue(back, "status \(client.status), resumptions \(resumed.values)")
        XCTAssertEqual(provided.values.count, 1)
        XCTAssertEqual(log.all.count, 2)
        XCTAssertEqual(log.all[1].request.url, "wss://rollcall.example.com/v1/ws?token=second-token")
        let rejoin = try XCTUnwrap(log.all[1].sent.first)
        XCTAssertEqual(rejoin["resume"], 6)
        XCTAssertEqual(rejoin["resumeEvents"], 6, "a patch at 6 means every event up to 6 arrived before it")

        // A removal (4003) ends the client without another transport.
        log.all[1].closeFromServer(code: 4003, reason: "removed")
        let closed = await eventually { if case .closed = client.status { return true } else { return false } }
        XCTAssertTrue(closed)
        XCTAssertEqual(log.all.count, 2)
        XCTAssertFalse(room.isActive)
        await client.close()
    }

    func testTheTokenTravelsInAHeaderOrTheFirstMessage() async throws {
        let headerLog = TransportLog()
        let byHeader = try self.client(log: headerLog, authentication: .header)
        try await byHeader.connect()
        let request = try XCTUnwrap(headerLog.all.first?.request)
        XCTAssertEqual(request.url, "wss://rollcall.example.com/v1/ws")
        XCTAssertEqual(request.headers.map(\.name), ["Authorization"])
        XCTAssertEqual(request.headers.map(\.value), ["Bearer first-token"])
        await byHeader.close()

        let messageLog = TransportLog()
        let byMessage = try self.client(log: messageLog, authentication: .message)
        try await byMessage.connect()
        let auth = try XCTUnwrap(messageLog.all.first?.sent.first)
        XCTAssertEqual(auth, ["type": "auth", "token": "first-token"])
        await byMessage.close()
        XCTAssertEqual(
            byMessage.status,
            .closed(RollcallCloseInfo(code: 1000, reason: "", wasClean: true, initiatedLocally: true)))
    }

    func testAProviderThatFailsFailsTheFirstConnect() async throws {
        struct BackendDown: Error {}
        let log = TransportLog()
        let configuration = RollcallClientConfiguration(
            endpoint: try RollcallEndpoint(url: "ws://127.0.0.1:9/v1/ws"), token: "",
            tokenProvider: { throw BackendDown() },
            transport: { request in
                let transport = ScriptedTransport(request: request, roster: Self.roster, sequence: 1)
                log.append(transport)
                return transport
            }
        )
        let client = Rollcall(configuration: configuration)
        do {
            try await client.connect()
            XCTFail("connected without a token")
        } catch {
            XCTAssertTrue(error.description.contains("token provider"), error.description)
        }
        XCTAssertTrue(log.all.isEmpty)
        await client.close()
    }
}

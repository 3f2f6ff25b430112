import Foundation
import RollcallClient
import TokenAuth
import XCTest

/// The token provider against a live gateway that allows no clock leeway: reconnects after a token expired, and
/// refreshes before it does.
final class RollcallTokenProviderLiveTests: XCTestCase {
    private let room = "standup"

    private func configuration(
        _ gateway: LiveGateway,
        token: String,
        provider: RollcallTokenProvider?,
        reconnect: RollcallReconnectPolicy,
        refreshMargin: Double = 60
    ) throws -> RollcallClientConfiguration {
        RollcallClientConfiguration(
            endpoint: try RollcallEndpoint(url: "ws://127.0.0.1:\(gateway.address.port)/v1/ws"),
            token: token,
            tokenProvider: provider,
            connection: RollcallConnectionOptions(connectTimeout: 5),
            reconnect: reconnect,
            requestTimeout: 5,
            tokenRefreshMargin: refreshMargin
        )
    }

    func testAReconnectAfterTheTokenExpiredAsksTheProvider() async throws {
        let gateway = try LiveGateway(leeway: 0)
        defer { gateway.stop() }
        // The outage outlasts the first tokens (two seconds).
        let outage = RollcallReconnectPolicy(maximumAttempts: 3, initialDelay: 2.5, maximumDelay: 2.5, jitter: 0)
        let asked = Resumptions()
        let withProvider = Rollcall(
            configuration: try self.configuration(
                gateway, token: try gateway.token("bob", groups: [self.room], ttl: 2),
                provider: {
                    asked.append(true)
                    return try gateway.token("bob", groups: [self.room])
                }, reconnect: outage))
        let without = Rollcall(
            configuration: try self.configuration(
                gateway, token: try gateway.token("carol", groups: [self.room], ttl: 2), provider: nil,
                reconnect: outage))
        try await withProvider.connect()
        try await without.connect()
        let bobRoom = try await withProvider.join(room: self.room)
        let carolRoom = try await without.join(room: self.room)
        let resumed = Resumptions()
        bobRoom.onChange { change in
            if case .resumed(let recovered) = change { resumed.append(recovered) }
        }

        withProvider.dropConnection()
        without.dropConnection()
        let back = await eventually(timeout: 10) { resumed.values == [true] && withProvider.status == .connected }
        XCTAssertTrue(back, "status \(withProvider.status), resumptions \(resumed.values)")
        XCTAssertEqual(asked.values.count, 1)
        let ended = await eventually(timeout: 10) { if case .closed = without.status { true } else { false } }
        XCTAssertTrue(ended)
        guard case .closed(let info) = without.status else { return XCTFail("\(without.status)") }
        XCTAssertEqual(info?.code, 4001, "without a provider the expired token is refused for good")
        XCTAssertFalse(carolRoom.isActive)
        XCTAssertTrue(bobRoom.isActive)
        await withProvider.close()
    }

    func testTheProviderRefreshesTheSessionBeforeTheTokenExpires() async throws {
        let gateway = try LiveGateway(leeway: 0)
        defer { gateway.stop() }
        let asked = Resumptions()
        let client = Rollcall(
            configuration: try self.configuration(
                gateway, token: try gateway.token("bob", groups: [self.room], ttl: 3),
                provider: {
                    asked.append(true)
                    return try gateway.token("bob", groups: [self.room], ttl: 3)
                }, reconnect: .never, refreshMargin: 1.5))
        let errors = Resumptions()
        client.onStatusChange { status in
            if case .closed = status { errors.append(false) }
        }
        try await client.connect()
        let firstExpiry = try XCTUnwrap(client.tokenExpiresAt)
        let room = try await client.join(room: self.room)
        try await Task.sleep(nanoseconds: 5_000_000_000)
        // Without a refresh the gateway would have closed the session with 4002 after three seconds.
        XCTAssertEqual(client.status, .connected)
        XCTAssertTrue(errors.values.isEmpty)
        XCTAssertGreaterThanOrEqual(asked.values.count, 2)
        XCTAssertGreaterThan(client.tokenExpiresAt ?? 0, firstExpiry)
        let ack = try await room.setAudioMuted(true)
        XCTAssertTrue(ack.changed)
        await client.close()
    }
}

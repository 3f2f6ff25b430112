import JSONCoding
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

@Suite struct AuthenticationTests {
    @Test func aTokenThatNeverExpiresKeepsItsSessionAndTheTickCopes() throws {
        let harness = try RoomsNodeHarness()
        let farFuture = Int64.max - harness.nowSeconds - 1
        let session = harness.open(
            token: try harness.token("u-alice", rooms: ["r": .participant], expiresIn: farFuture))
        #expect(harness.drain(session).first?["type"] == "welcome")
        harness.advance(milliseconds: 86_400_000)
        harness.gateway.tick()
        #expect(harness.transport.closes[session] == nil)
        #expect(harness.gateway.sessionCount == 1)
    }

    @Test func aTokenAtOpenIsWelcomedWithTheUserAndExpiry() throws {
        let harness = try RoomsNodeHarness()
        let token = try harness.token("u-alice", name: "Alice", rooms: ["r": .participant])
        let session = harness.open(token: token)
        let messages = harness.drain(session)
        #expect(messages.count == 1)
        #expect(messages.first?["type"] == "welcome")
        #expect(messages.first?["uid"] == "u-alice")
        #expect(messages.first?["name"] == "Alice")
        #expect(messages.first?["expiresAt"] == .int(harness.nowSeconds + 3600))
        #expect(harness.closeCode(session) == nil)
        try harness.join(session, "r")
    }

    @Test func anAuthMessageAuthenticatesAndEchoesTheID() throws {
        let harness = try RoomsNodeHarness()
        let session = harness.open(token: nil)
        #expect(harness.drain(session).isEmpty)
        let token = try harness.token("u-bob", rooms: ["r": .participant])
        let answer = harness.request(session, ["type": "auth", "id": 7, "token": .string(token)])
        #expect(answer.count == 1)
        #expect(answer.first?["type"] == "welcome")
        #expect(answer.first?["id"] == 7)
        #expect(answer.first?["uid"] == "u-bob")
        #expect(answer.first?["name"] == "u-bob")
        try harness.join(session, "r")
    }

    @Test func requestsBeforeAuthenticationAreRefusedWithoutClosing() throws {
        let harness = try RoomsNodeHarness()
        let session = harness.open(token: nil)
        let answer = harness.request(session, ["type": "join", "id": 1, "room": "r"])
        #expect(answer.errorCodes == ["ERR_UNAUTHORIZED"])
        #expect(answer.first?["id"] == 1)
        #expect(harness.closeCode(session) == nil)
        #expect(harness.gateway.roomState("r") == nil)
        // A ping is answered even before authentication.
        #expect(harness.request(session, ["type": "ping", "id": "p"]) == [["type": "pong", "id": "p"]])
    }

    @Test func aRefreshForTheSameUserIsWelcomedAgainAndExtendsTheSession() throws {
        let harness = try RoomsNodeHarness()
        let session = harness.open(token: try harness.token("u-alice", rooms: ["r": .participant], expiresIn: 60))
        _ = harness.drain(session)
        try harness.join(session, "r")
        harness.advance(milliseconds: 50_000)
        let refreshed = try harness.token("u-alice", rooms: ["r": .participant], expiresIn: 3600)
        let answer = harness.request(session, ["type": "auth", "id": 2, "token": .string(refreshed)])
        #expect(answer.first?["type"] == "welcome")
        #expect(answer.first?["expiresAt"] == .int(harness.nowSeconds + 3600))
        // Well past the first token's expiry (and its leeway) the session is still open and in the room.
        harness.advance(milliseconds: 600_000)
        #expect(harness.closeCode(session) == nil)
        #expect(harness.drain(session).errorCodes.isEmpty)
        #expect(harness.participant("u-alice", in: "r")?.isJoined == true)
    }

    @Test func aRefreshForAnotherUserIsRefusedAndTheIdentityStays() throws {
        let harness = try RoomsNodeHarness()
        let session = try harness.connect("u-alice", rooms: ["r": .participant])
        try harness.join(session, "r")
        let other = try harness.token("u-mallory", rooms: ["r": .moderator])
        let answer = harness.request(session, ["type": "auth", "id": 3, "token": .string(other)])
        #expect(answer.errorCodes == ["ERR_FORBIDDEN"])
        #expect(answer.first?["id"] == 3)
        #expect(harness.closeCode(session) == nil)
        // Still Alice, a participant: a moderator action is refused.
        harness.send(session, ["type": "state", "room": "r", "audioMuted": true])
        #expect(harness.drain(session).events.first?["actor"] == "u-alice")
        let denied = harness.request(session, ["type": "action", "room": "r", "action": "mute_all"])
        #expect(denied.errorCodes == ["ERR_FORBIDDEN"])
    }

    @Test func aFailedRefreshKeepsTheSessionOnItsCurrentToken() throws {
        let harness = try RoomsNodeHarness()
        let session = try harness.connect("u-alice", rooms: ["r": .participant])
        try harness.join(session, "r")
        let bad = try harness.token("u-alice", rooms: ["r": .participant], secret: RoomsNodeHarness.otherSecret)
        let answer = harness.request(session, ["type": "auth", "id": 4, "token": .string(bad)])
        #expect(answer.errorCodes == ["ERR_UNAUTHORIZED"])
        #expect(harness.closeCode(session) == nil)
        #expect(harness.participant("u-alice", in: "r")?.isJoined == true)
    }

    enum BadToken: CaseIterable {
        case expired, notYetValid, wrongSignature, wrongAudience, algorithmNone, garbage
    }

    func badToken(_ kind: BadToken, harness: RoomsNodeHarness) throws -> String {
        switch kind {
        case .expired:
            return try harness.token("u-eve", rooms: ["r": .participant], expiresIn: -120, audience: ["rollcall"])
        case .notYetValid:
            return try harness.token("u-eve", rooms: ["r": .participant], notBeforeIn: 600, audience: ["rollcall"])
        case .wrongSignature:
            return try harness.token(
                "u-eve", rooms: ["r": .participant], audience: ["rollcall"],
                secret: RoomsNodeHarness.otherSecret)
        case .wrongAudience:
            return try harness.token("u-eve", rooms: ["r": .participant], audience: ["another-service"])
        case .algorithmNone:
            return harness.unsignedToken("u-eve", rooms: ["r": "admin"])
        case .garbage:
            return "not-a-token"
        }
    }

    @Test(arguments: BadToken.allCases)
    func aTokenThatFailsVerificationAtOpenIsRefusedAndClosedWith4001(_ kind: BadToken) throws {
        let harness = try RoomsNodeHarness(audience: "rollcall")
        // The same claims with a good token are accepted: only the defect is refused.
        let good = harness.open(token: try harness.token("u-eve", rooms: ["r": .participant], audience: ["rollcall"]))
        #expect(harness.drain(good).first?["type"] == "welcome")

        let session = harness.open(token: try self.badToken(kind, harness: harness))
        let messages = harness.drain(session)
        #expect(messages.errorCodes == ["ERR_UNAUTHORIZED"])
        #expect(messages.first(type: "welcome") == nil)
        #expect(harness.closeCode(session) == GatewayCloseCode.unauthorized.rawValue)
        // The session is gone: later messages are ignored.
        harness.send(session, ["type": "join", "room": "r"])
        #expect(harness.drain(session).isEmpty)
        #expect(harness.gateway.roomState("r") == nil)
    }

    @Test(arguments: BadToken.allCases)
    func aTokenThatFailsVerificationInAnAuthMessageIsRefusedAndClosedWith4001(_ kind: BadToken) throws {
        let harness = try RoomsNodeHarness(audience: "rollcall")
        let session = harness.open(token: nil)
        let token = try self.badToken(kind, harness: harness)
        let answer = harness.request(session, ["type": "auth", "id": 1, "token": .string(token)])
        #expect(answer.errorCodes == ["ERR_UNAUTHORIZED"])
        #expect(answer.first?["id"] == 1)
        #expect(harness.closeCode(session) == GatewayCloseCode.unauthorized.rawValue)
        #expect(harness.gateway.sessionCount == 0)
    }

    @Test func aSessionThatDoesNotAuthenticateInTimeIsClosedWith4001() throws {
        let harness = try RoomsNodeHarness { $0.authenticationTimeoutMilliseconds = 10_000 }
        let late = harness.open(token: nil)
        let punctual = harness.open(token: nil)
        harness.advance(milliseconds: 9_000)
        #expect(harness.closeCode(late) == nil)
        harness.send(punctual, ["type": "auth", "token": .string(try harness.token("u-bob"))])
        harness.advance(milliseconds: 1_000)
        #expect(harness.closeCode(late) == GatewayCloseCode.unauthorized.rawValue)
        #expect(harness.closeCode(punctual) == nil)
        #expect(harness.gateway.sessionCount == 1)
    }

    @Test func aTokenThatExpiresMidSessionGetsTokenExpiredAndClose4002() throws {
        let harness = try RoomsNodeHarness()
        let session = harness.open(token: try harness.token("u-alice", rooms: ["r": .participant], expiresIn: 60))
        let watcher = try harness.connect("u-bob", rooms: ["r": .participant])
        _ = harness.drain(session)
        try harness.join(session, "r")
        try harness.join(watcher, "r")
        // Within exp plus the 30 s leeway nothing happens.
        harness.advance(milliseconds: 89_000)
        #expect(harness.closeCode(session) == nil)
        harness.advance(milliseconds: 1_000)
        #expect(harness.drain(session).errorCodes == ["ERR_TOKEN_EXPIRED"])
        #expect(harness.closeCode(session) == GatewayCloseCode.tokenExpired.rawValue)
        #expect(harness.closeCode(watcher) == nil)
        // Like any closed socket, the participant has the grace period to come back with a fresh token.
        #expect(harness.drain(watcher).events(named: "session.connection_closed").first?["data"]?["uid"] == "u-alice")
        harness.advance(milliseconds: harness.gateway.configuration.reconnectGraceMilliseconds)
        #expect(harness.participant("u-alice", in: "r")?.isJoined == false)
        let left = harness.drain(watcher).events(named: "participant.left")
        #expect(left.count == 1)
        #expect(left.first?["data"]?["uid"] == "u-alice")
    }
}

import TokenAuth

/// One client connection, as the gateway sees it.
final class HostedSession {
    enum AuthState {
        case awaiting(deadline: Int64)
        case authenticated(TokenClaims)
    }

    struct Subscription {
        var kind: ClientMessage.SubscriptionKind
        var deviceID: String
        var view: RosterViewSpec
        var events: EventMode
    }

    let id: SessionID
    var auth: AuthState
    var subscriptions: [String: Subscription] = [:]
    /// False while the connection's write queue is over its high watermark: roster patches are not sent then.
    var isWritable = true
    var unwritableSince: Int64?
    /// Rooms whose patches were skipped while not writable: a fresh snapshot replaces them.
    var needsResync: Set<String> = []
    /// Rooms whose waiting room this connection waits in (`HostedRoom.waitingJoins`).
    var waitingIn: Set<String> = []
    /// Authentications tried so far (on open and with `auth`), numbering each for `SessionAuthority`.
    var authenticationAttempts = 0

    init(id: SessionID, auth: AuthState) {
        self.id = id
        self.auth = auth
    }

    var claims: TokenClaims? {
        if case .authenticated(let claims) = self.auth { return claims }
        return nil
    }
}

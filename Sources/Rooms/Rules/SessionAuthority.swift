import JSONCoding
import Synchronization
import TokenAuth

/// The decisions about sessions that every rooms thread must agree on, made once and kept for the others: whether each
/// authentication of a session was accepted (its claims), refused, over the user's connection limit, or too late;
/// and each user's authenticated connections, counted once for the whole process.
///
/// Rooms threads see a session's messages in the order it sent them but at their own pace, and a token's check depends on
/// the time; so the first rooms thread to reach a session's n-th authentication decides it, under the lock, and every
/// other rooms thread takes that decision when it gets there. A session's decisions are forgotten when every rooms thread has
/// seen its connection end.
public final class SessionAuthority: Sendable {
    /// What became of one authentication.
    enum Decision: Sendable {
        case accepted(TokenClaims)
        case refused(String)
        case tooManyConnections
        case timedOut
    }

    private struct State {
        var decisions: [SessionID: [Decision]] = [:]
        var connectionsByUser: [String: Int] = [:]
        /// The user each counted session was counted for.
        var counted: [SessionID: String] = [:]
        /// How many rooms threads have seen each session's connection end.
        var ended: [SessionID: Int] = [:]
        /// Rooms each session is in, over every rooms thread, for `maximumRoomsPerSession`.
        var rooms: [SessionID: Int] = [:]
    }

    /// The placement of rooms and sessions over the rooms threads.
    public let placement: RoomThreadPlacement
    private let state = Mutex(State())

    /// - Parameter placement: the placement the rooms threads share.
    public init(placement: RoomThreadPlacement) {
        self.placement = placement
    }

    /// The decision on a session's `attempt`-th authentication (from 1), made by `decide` if no rooms thread made it yet.
    ///
    /// - Parameters:
    ///   - session: the session.
    ///   - attempt: which authentication of the session this is.
    ///   - isFirst: whether the session had no claims yet (the first accepted authentication counts a connection).
    ///   - limit: the most connections one user may have.
    ///   - verify: checks the token (under the lock: once for every rooms thread).
    func decide(
        _ session: SessionID,
        attempt: Int,
        isFirst: Bool,
        limit: Int,
        verify: () -> Result<TokenClaims, TokenError>
    ) -> Decision {
        self.state.withLock { state in
            let made = state.decisions[session, default: []]
            if made.count >= attempt { return made[attempt - 1] }
            let decision: Decision
            switch verify() {
            case .failure(let error):
                decision = .refused(error.description)
            case .success(let claims) where isFirst:
                if state.connectionsByUser[claims.subject, default: 0] >= limit {
                    decision = .tooManyConnections
                } else {
                    state.connectionsByUser[claims.subject, default: 0] += 1
                    state.counted[session] = claims.subject
                    decision = .accepted(claims)
                }
            case .success(let claims):
                decision = .accepted(claims)
            }
            state.decisions[session, default: []].append(decision)
            return decision
        }
    }

    /// Ends a session's wait for its first authentication, unless a rooms thread already decided it.
    ///
    /// - Parameter session: a session still without claims whose authentication time is over.
    /// - Returns: true when the session timed out (it is to be closed); false when its authentication was decided.
    func timeOut(_ session: SessionID) -> Bool {
        self.state.withLock { state in
            guard state.decisions[session, default: []].isEmpty else { return false }
            state.decisions[session] = [.timedOut]
            return true
        }
    }

    /// One rooms thread saw the session's connection end: the first uncounts its user, the last forgets its decisions.
    ///
    /// - Parameter session: the session whose connection ended.
    func connectionEnded(_ session: SessionID) {
        self.state.withLock { state in
            if let uid = state.counted.removeValue(forKey: session) {
                let count = state.connectionsByUser[uid, default: 0] - 1
                state.connectionsByUser[uid] = count > 0 ? count : nil
            }
            let ended = state.ended[session, default: 0] + 1
            if ended >= self.placement.count {
                state.ended[session] = nil
                state.decisions[session] = nil
                state.rooms[session] = nil
            } else {
                state.ended[session] = ended
            }
        }
    }

    /// Counts one more room for a session if it is in fewer than `limit`.
    ///
    /// - Returns: whether the room was counted (false: the session is in `limit` rooms already).
    func reserveRoom(for session: SessionID, limit: Int) -> Bool {
        self.state.withLock { state in
            let rooms = state.rooms[session, default: 0]
            guard rooms < limit else { return false }
            state.rooms[session] = rooms + 1
            return true
        }
    }

    /// Counts rooms a session left (or that ended with it on one rooms thread).
    func releaseRooms(of session: SessionID, count: Int) {
        guard count > 0 else { return }
        self.state.withLock { state in
            guard let rooms = state.rooms[session] else { return }
            state.rooms[session] = rooms > count ? rooms - count : nil
        }
    }

    /// Rooms a session is in, over every rooms thread.
    func rooms(of session: SessionID) -> Int {
        self.state.withLock { $0.rooms[session, default: 0] }
    }

    /// Authenticated connections of a user, over every rooms thread.
    ///
    /// - Parameter uid: the user.
    /// - Returns: how many of the user's connections are counted.
    public func connections(of uid: String) -> Int {
        self.state.withLock { $0.connectionsByUser[uid, default: 0] }
    }

    /// Sessions whose decisions are still kept (for tests: none once every connection ended on every rooms thread).
    public var sessionsKept: Int {
        self.state.withLock { state in Set(state.decisions.keys).union(state.ended.keys).union(state.rooms.keys).count }
    }
}

/// The answer to one `rooms` query, put together from every rooms thread's rooms: the last rooms thread to add its part sends it.
public final class RoomsQueryAnswer: Sendable {
    private struct State {
        var entries: [(String, JSONValue)] = []
        var remaining: Int
        var authenticated = true
    }

    private let state: Mutex<State>

    /// - Parameter parts: how many rooms threads add a part.
    init(parts: Int) {
        self.state = Mutex(State(remaining: parts))
    }

    /// Adds one rooms thread's rooms (nil when the session has no claims there).
    ///
    /// - Returns: when this was the last part, every room sorted by id and whether every rooms thread knew the claims.
    func add(_ entries: [(String, JSONValue)]?) -> (rooms: [JSONValue], authenticated: Bool)? {
        self.state.withLock { state in
            if let entries { state.entries += entries } else { state.authenticated = false }
            state.remaining -= 1
            guard state.remaining == 0 else { return nil }
            return (state.entries.sorted { $0.0 < $1.0 }.map(\.1), state.authenticated)
        }
    }
}

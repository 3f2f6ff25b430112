import Foundation

/// Tokens from the provider: for each reconnect, and shortly before the current one expires.
extension Rollcall {
    /// The token for a new connection: the provider's for a reconnect (or when the configuration has no token),
    /// the current one otherwise. Waits on the client's thread for the provider, at most `requestTimeout`.
    ///
    /// - Parameters:
    ///   - reconnecting: whether an earlier connection was welcomed.
    func token(reconnecting: Bool) throws(RollcallError) -> String {
        let current = self.lock.withLock { self.token }
        guard let provider = self.configuration.tokenProvider, reconnecting || current.isEmpty else { return current }
        let box = ProvidedToken()
        let task = Task {
            do {
                box.set(.success(try await provider()))
            } catch {
                box.set(.failure(RollcallError(.tokenProvider(String(describing: error)))))
            }
        }
        let deadline = MonotonicClock.now() + self.configuration.requestTimeout
        while true {
            if let result = box.wait(seconds: 0.1) {
                let token = try result.get()
                guard !token.isEmpty else { throw RollcallError(.tokenProvider("it returned an empty token")) }
                self.lock.withLock { self.token = token }
                return token
            }
            if self.lock.withLock({ self.state.isEnding }) {
                task.cancel()
                throw RollcallError(.notConnected)
            }
            if MonotonicClock.now() > deadline {
                task.cancel()
                throw RollcallError(.timedOut("the token provider"))
            }
        }
    }

    /// When to refresh a token that expires at `expiresAt` (seconds since the epoch), on the monotonic clock:
    /// `tokenRefreshMargin` before, or halfway for a token that lives less than twice the margin.
    func refreshTime(expiresAt: Int64) -> Double {
        guard self.configuration.tokenProvider != nil, expiresAt > 0 else { return .infinity }
        let remaining = max(0, Double(expiresAt) - Date().timeIntervalSince1970)
        return MonotonicClock.now() + remaining - min(self.configuration.tokenRefreshMargin, remaining / 2)
    }

    /// Asks the provider for a new token and refreshes the session with it once the refresh time has come (the
    /// client's thread calls this with every tick). A failed refresh is tried again a quarter margin later.
    func refreshTokenIfDue() {
        guard let provider = self.configuration.tokenProvider else { return }
        let now = MonotonicClock.now()
        let due: Bool = self.lock.withLock {
            guard self.state.welcomedTransport != nil, !self.refreshInFlight, now >= self.state.refreshAt else {
                return false
            }
            self.refreshInFlight = true
            return true
        }
        guard due else { return }
        Task {
            var succeeded = false
            do {
                let token = try await provider()
                try await self.refreshToken(token)
                succeeded = true
            } catch {
                succeeded = false
            }
            self.lock.withLock {
                self.refreshInFlight = false
                if !succeeded {
                    self.state.refresh(at: MonotonicClock.now() + max(1, self.configuration.tokenRefreshMargin / 4))
                }
            }
        }
    }
}

/// The provider's answer, handed from its task to the client's thread.
final class ProvidedToken: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<String, RollcallError>?

    /// Stores the answer and wakes the waiting thread.
    func set(_ result: Result<String, RollcallError>) {
        self.condition.lock()
        self.result = result
        self.condition.broadcast()
        self.condition.unlock()
    }

    /// The answer, waiting up to `seconds` for it; nil when it has not come.
    func wait(seconds: Double) -> Result<String, RollcallError>? {
        self.condition.lock()
        defer { self.condition.unlock() }
        if self.result == nil {
            _ = self.condition.wait(until: Date().addingTimeInterval(seconds))
        }
        return self.result
    }
}

import EventIO

extension RedisClient {
    /// Why a `ROLE` reply shows a server that is not a primary; nil for a primary.
    static func refusalAsPrimary(_ reply: RESPValue) -> String? {
        guard case .array(let items?) = reply, let first = items.first else {
            return "ROLE gave no role"
        }
        let role: String
        switch first {
        case .bulkString(let bytes?): role = String(decoding: bytes, as: UTF8.self)
        case .simpleString(let text): role = text
        default: return "ROLE gave no role"
        }
        return role == "master" ? nil : "ROLE answered \(role.debugDescription), not \"master\""
    }

    /// Asks the Sentinels again after `recheckMilliseconds`, while connected: when they name another server, the
    /// connection is dropped and the client connects to that one. A question nobody answers keeps the connection.
    func scheduleSentinelRecheck() {
        guard let locator = self.sentinelLocator, self.sentinelRecheckTimer == nil else { return }
        let nanoseconds = Self.nanoseconds(milliseconds: locator.settings.recheckMilliseconds)
        self.sentinelRecheckTimer = self.loop.scheduleTimer(afterNanoseconds: nanoseconds) { [weak self] in
            guard let self else { return }
            self.sentinelRecheckTimer = nil
            guard let connection = self.connection, self.acceptsCommands else { return }
            locator.locatePrimary { [weak self, weak connection] result in
                guard let self, let connection, self.connection === connection else { return }
                if case .success(let primary) = result, primary != self.primaryAddress {
                    let previous = self.primaryAddress.map(\.description) ?? "none"
                    self.connectionFailed(.notPrimary("the Sentinels name \(primary) now, not \(previous)"))
                    return
                }
                self.scheduleSentinelRecheck()
            }
        }
    }
}

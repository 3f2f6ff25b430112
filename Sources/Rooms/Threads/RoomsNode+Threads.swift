import JSONCoding

/// The gateway as one of several rooms threads (`RoomThreadRouting.swift`): messages routed to it, what only a session's home
/// says, and the limits kept across rooms threads.
extension RoomsNode {
    /// Whether this gateway answers the session's own messages: always without rooms threads, else when it is its home.
    func isHome(_ id: SessionID) -> Bool {
        guard let roomThread = self.roomThread else { return true }
        return roomThread.placement.home(of: id) == roomThread.index
    }

    /// Whether this gateway owns a room: always without rooms threads.
    ///
    /// - Parameter roomID: the room.
    /// - Returns: true when the room's messages come to this gateway.
    public func owns(_ roomID: String) -> Bool {
        guard let roomThread = self.roomThread else { return true }
        return roomThread.placement.roomThread(ofRoom: roomID) == roomThread.index
    }

    /// Ends a session that its authentication refused: the home closes its connection, another rooms thread only forgets
    /// it (the connection's end reaches it later).
    func closeSessionFromHome(_ session: HostedSession, code: UInt16, reason: String) {
        if self.isHome(session.id) {
            self.closeSession(session, code: code, reason: reason)
        } else {
            self.endSession(session.id, cleanly: true)
        }
    }

    /// Rooms the session is in, over every rooms thread.
    func roomsJoined(by session: HostedSession) -> Int {
        self.roomThread?.authority.rooms(of: session.id) ?? session.subscriptions.count
    }

    /// Whether the session may be in one more room; with rooms threads, counts it at once for all of them.
    func reserveRoom(for session: HostedSession) -> Bool {
        let limit = self.configuration.maximumRoomsPerSession
        guard let roomThread = self.roomThread else { return session.subscriptions.count < limit }
        return roomThread.authority.reserveRoom(for: session.id, limit: limit)
    }

    /// A message that `RoomThreadRouter` read on the connection's thread and sent to this rooms thread.
    ///
    /// - Parameters:
    ///   - id: the session.
    ///   - message: the routed message.
    public func sessionReceived(_ id: SessionID, routed message: RoutedMessage) {
        switch message.content {
        case .request(let request):
            guard let session = self.sessions[id] else { return }
            self.received(request, from: session)
        case .refused(let requestID, let error):
            guard let session = self.sessions[id] else { return }
            self.reply(session, ServerMessages.error(id: requestID, error))
        case .roomsQuery(let requestID, let answer):
            let session = self.sessions[id]
            let entries = session?.claims.map { claims in
                Set(claims.groups + Array(claims.rooms.keys)).sorted().filter(self.owns).map {
                    ($0, self.roomsQueryEntry($0))
                }
            }
            guard let (rooms, authenticated) = answer.add(entries), let session else { return }
            guard authenticated else {
                let error = GatewayError.unauthorized("authenticate first with {\"type\":\"auth\",\"token\":...}")
                self.reply(session, ServerMessages.error(id: requestID, error))
                return
            }
            self.reply(session, ServerMessages.result(id: requestID, query: "rooms", [("rooms", .array(rooms))]))
        }
    }
}

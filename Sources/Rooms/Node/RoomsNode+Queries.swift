import JSONCoding
import TokenAuth

/// Read-only queries: rooms, the active meeting, member lists, history and attendance.
extension RoomsNode {
    func answer(
        _ query: ClientMessage.Query, session: HostedSession, claims: TokenClaims, requestID: JSONValue?
    )
        throws(GatewayError)
    {
        func requireAccess(_ roomID: String) throws(GatewayError) -> RoomState {
            guard self.role(of: claims, in: roomID) != nil else { throw .notGroupMember }
            return self.rooms[roomID]?.state ?? RoomState(id: roomID)
        }
        let name: String
        var fields: [(String, JSONValue)] = []
        switch query {
        case .rooms:
            let ids = Set(claims.groups + Array(claims.rooms.keys)).sorted()
            name = "rooms"
            fields.append(
                (
                    "rooms",
                    .array(ids.map(self.roomsQueryEntry))
                ))
        case .activeMeeting(let group):
            let state = try requireAccess(group)
            name = "active_meeting"
            fields.append(("group", .string(group)))
            fields.append(("meeting", state.activeMeeting.map(ServerMessages.meeting) ?? .null))
        case .members(let roomID, let page?):
            _ = try requireAccess(roomID)
            let room = self.rooms[roomID]
            let current = room?.state ?? RoomState(id: roomID)
            let sequence = page.at ?? current.sequence
            guard sequence <= current.sequence else {
                throw .badRequest("'at' is past the room's seq \(current.sequence)")
            }
            guard
                let state = sequence == current.sequence
                    ? current : room?.replica(at: sequence, speakerRule: self.speakerRule)?.state
            else {
                throw .notFound("seq \(sequence) is no longer retained; page again from the start")
            }
            let members = state.listedParticipants.filter { $0.order > (page.after ?? -1) }
            let slice = members.prefix(page.limit)
            name = "members"
            fields.append(("room", .string(roomID)))
            fields.append(("seq", .int(Int64(sequence))))
            fields.append(("uids", .array(slice.map { .string($0.uid) })))
            fields.append(("orders", .array(slice.map { .int(Int64($0.order)) })))
            fields.append(("next", members.count > page.limit ? .int(Int64(slice.last!.order)) : .null))
        case .members(let roomID, nil), .operators(let roomID), .muted(let roomID), .banned(let roomID):
            let state = try requireAccess(roomID)
            let uids: [String]
            switch query {
            case .members:
                name = "members"
                uids = state.listedParticipants.map(\.uid)
            case .operators:
                name = "operators"
                uids =
                    state.listedParticipants.map(\.uid).filter(state.isOperator)
                    + state.listedOperators.filter { state.participants[$0]?.isJoined != true }
            case .muted:
                name = "muted"
                uids = state.mutedUIDs
            default:
                name = "banned"
                uids = state.listedBanned
            }
            fields.append(("room", .string(roomID)))
            fields.append(("seq", .int(Int64(state.sequence))))
            fields.append(("uids", .array(uids.map { .string($0) })))
        case .history(let roomID, let after, let limit):
            _ = try requireAccess(roomID)
            // From memory, and with a store what memory no longer holds (meeting messages outlive roster churn).
            let found = try self.storedHistory(
                roomID, after: after, eventNames: nil, limit: limit, viewer: claims.subject)
            name = "history"
            fields.append(("room", .string(roomID)))
            fields.append(("firstRetained", .int(Int64(found.firstRetained))))
            fields.append(("events", .array(found.events)))
        case .attendance(let roomID, let after, let limit):
            let state = try requireAccess(roomID)
            guard RoomActor(claims: claims, role: self.role(of: claims, in: roomID)).mayReadAttendance(in: state) else {
                throw .forbidden("only moderators and bots with 'attendance' read the attendance")
            }
            let replica = self.rooms[roomID]?.replica ?? RoomReplica(state: state)
            name = "attendance"
            fields = replica.attendancePage(after: after, limit: limit, asOf: self.clock())
        case .waiting(let roomID, let after, let limit):
            let state = try requireAccess(roomID)
            guard RoomActor(claims: claims, role: self.role(of: claims, in: roomID)).mayAdmit(in: state) else {
                throw .forbidden("only moderators and bots with 'admit' see the waiting room")
            }
            name = "waiting"
            fields = state.waitingPage(after: after, limit: limit)
        }
        self.reply(session, ServerMessages.result(id: requestID, query: name, fields))
    }

    /// One room of the `rooms` query's answer.
    func roomsQueryEntry(_ id: String) -> JSONValue {
        let state = self.rooms[id]?.state ?? RoomState(id: id)
        return .object(
            JSONObject([
                ("room", .string(id)),
                ("active", .bool(state.listedCount > 0)),
                ("participants", .int(Int64(state.listedCount))),
                ("seq", .int(Int64(state.sequence))),
                ("activeMeeting", state.activeMeeting.map(ServerMessages.meeting) ?? .null),
            ]))
    }

    /// Limits for reading back messages the gateway wrote itself.
    static let storedMessageLimits = JSONParser.Limits(
        maxInputBytes: 1 << 20, maxDepth: 32, maxStringBytes: 1 << 20, maxElementsPerContainer: 1 << 16,
        maxTotalNodes: 1 << 20
    )
}

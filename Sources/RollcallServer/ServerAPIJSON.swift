import JSONCoding
import Rooms

// The server API's answers as JSON (docs/API.md, api/openapi.json): the rooms layer answers with values, the server
// shapes them here, in one place.

extension RoomChangeOutcome {
    /// `{"room", "seq", "changed"}`.
    var json: JSONValue {
        .object(
            JSONObject(uniqueKeysWithValues: [
                ("room", .string(self.room)), ("seq", .int(Int64(self.sequence))), ("changed", .bool(self.changed)),
            ]))
    }
}

extension RoomListingEntry {
    /// `{"room", "seq", "participants", "subscribers", "activeMeeting", "loaded"}`.
    var json: JSONValue {
        .object(
            JSONObject(uniqueKeysWithValues: [
                ("room", .string(self.room)), ("seq", .int(Int64(self.sequence))),
                ("participants", .int(Int64(self.participants))), ("subscribers", .int(Int64(self.subscribers))),
                ("activeMeeting", self.activeMeeting?.wireJSON ?? .null), ("loaded", .bool(self.loaded)),
            ]))
    }
}

extension RoomListingPage {
    /// `{"rooms": [...], "next"}`.
    var json: JSONValue {
        .object(
            JSONObject(uniqueKeysWithValues: [
                ("rooms", .array(self.entries.map(\.json))), ("next", self.next.map { .string($0) } ?? .null),
            ]))
    }
}

extension RoomReport {
    /// The snapshot's members without its `type`, with the `all` view's `roster` and the node's `subscribers`.
    var json: JSONValue {
        guard case .object(var object) = self.snapshot else { return self.snapshot }
        object["type"] = nil
        object["roster"] = self.roster
        object["subscribers"] = .int(Int64(self.subscribers))
        return .object(object)
    }
}

/// `{"uid", "disconnected": N}`: the answer of a disconnect, N the connections closed on this node.
func disconnectAnswer(uid: String, closed: Int) -> JSONValue {
    .object(JSONObject(uniqueKeysWithValues: [("uid", .string(uid)), ("disconnected", .int(Int64(closed)))]))
}

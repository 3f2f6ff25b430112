import JSONCoding

extension AttendanceRecord {
    /// The record as the `attendance` query and the server API give it; times in milliseconds.
    var wireValue: JSONValue {
        .object(
            JSONObject([
                ("uid", .string(self.uid)), ("name", .string(self.name)), ("role", .string(self.role.rawValue)),
                ("order", .int(Int64(self.order))), ("firstJoinedAt", .int(self.firstJoinedAt)),
                ("lastLeftAt", self.lastLeftAt.map { .int($0) } ?? .null),
                ("inCallMs", .int(self.inCallMilliseconds)), ("speakingMs", .int(self.speakingMilliseconds)),
                ("audioMs", .int(self.audioMilliseconds)), ("videoMs", .int(self.videoMilliseconds)),
                ("presentingMs", .int(self.presentingMilliseconds)), ("handsRaised", .int(Int64(self.handsRaised))),
            ]))
    }
}

extension RoomReplica {
    /// A page of the room's attendance as the `attendance` query and the server API answer it: the records after
    /// the join-order cursor `after`, at most `limit`, as of `asOf`, with `next` the cursor of the page after
    /// (null on the last).
    func attendancePage(after: Int?, limit: Int, asOf: Int64) -> [(String, JSONValue)] {
        let records = self.attendance(asOf: asOf).filter { $0.order > (after ?? -1) }
        let page = records.prefix(limit)
        return [
            ("room", .string(self.state.id)), ("seq", .int(Int64(self.state.sequence))), ("asOf", .int(asOf)),
            ("callStartedAt", self.state.startedAt.map { .int($0) } ?? .null),
            ("participants", .array(page.map(\.wireValue))),
            ("next", records.count > limit ? .int(Int64(page.last!.order)) : .null),
        ]
    }
}

extension RoomReplica {
    /// The message webhooks deliver for `entry` when it differs from `message`, the one subscribers got: the entry
    /// that ends a call carries the attendance report of that call, as `attendance`, a list of the records the
    /// `attendance` query gives, as of the entry's time. A call ends with `session.ended` (a moderator ended the
    /// session) or with the `participant.left` of the last device in it. Nil for every other entry.
    ///
    /// Call it with the replica after the entry was applied, in the single process and when a cluster renders
    /// webhooks from the shared log alike, so both deliver the same report.
    ///
    /// - Parameters:
    ///   - entry: the entry just applied.
    ///   - message: the event message subscribers got, a JSON object.
    public func webhookMessage(for entry: RoomLogEntry, message: [UInt8]) -> [UInt8]? {
        guard entry.endsTheCall(in: self.state), message.last == UInt8(ascii: "}") else { return nil }
        let records = self.attendance(asOf: entry.time).map(\.wireValue)
        var report = Array(message.dropLast())
        report += Array(#","attendance":"#.utf8)
        report += JSONWriter.bytes(.array(records))
        report.append(UInt8(ascii: "}"))
        return report
    }
}

extension RoomLogEntry {
    /// Whether the entry, just applied to `state`, ended its call: `session.ended`, or the leave of the last device
    /// in the call (not those of `end_session`, which `session.ended` follows).
    func endsTheCall(in state: RoomState) -> Bool {
        switch self.event {
        case .sessionEnded:
            return true
        case .participantLeft(let uid, _, let reason):
            return reason != .sessionEnded && state.startedAt == nil && state.participants[uid]?.leftAt == self.time
        default:
            return false
        }
    }
}

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

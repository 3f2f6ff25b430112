/// What the lists others receive may show of a room: hidden participants (`permissions.hidden`) are in none of
/// them, nor shown as the active speaker.
extension RoomState {
    /// Whether `uid` is a participant the lists do not show (`permissions.hidden`).
    public func isHidden(_ uid: String) -> Bool {
        self.participants[uid]?.permissions.hidden == true
    }

    /// The speaker the roster may show: whoever started speaking last, is in the call, is not hidden and has not
    /// stopped (a hidden recorder that reports itself speaking neither takes nor blanks the spotlight).
    public var shownSpeakerCandidate: String? {
        self.speakers.last(where: self.shownSpeakerCandidate(includes:))
    }

    /// Whether `uid` may be shown as the speaker: in the call and not hidden.
    public func shownSpeakerCandidate(includes uid: String) -> Bool {
        guard let participant = self.participants[uid] else { return false }
        return participant.isJoined && !participant.permissions.hidden
    }

    /// The counts every roster view carries (the room entry's `counts`), over the participants the lists show: those
    /// in the call and not hidden, whom `listedCount` counts (`inCall` is that number). One walk over the
    /// participants, done once per round of patches for all the views.
    var viewCounts: RosterCounts {
        var counts = RosterCounts()
        for participant in self.participants.values where participant.isJoined && !participant.permissions.hidden {
            counts.add(participant)
        }
        return counts
    }

    /// The promoted uids the lists show, in order.
    public var listedOperators: [String] {
        self.operators.filter { !self.isHidden($0) }.sorted()
    }

    /// The banned uids the lists show, in order.
    public var listedBanned: [String] {
        self.banned.filter { !self.isHidden($0) }.sorted()
    }
}

/// One participant's attendance in a room's current (or last) call, computed from the room's log alone, so every
/// node that applies the same entries, and a node restarted from its store, gives the same figures for the same
/// `asOf`. Devices and reconnects are merged: the time in the call runs while at least one device is in it.
public struct AttendanceRecord: Hashable, Sendable {
    public var uid: String
    public var name: String
    public var role: ParticipantRole
    /// The participant's place in the call's join order.
    public var order: Int
    /// When the user first joined the call (log time, milliseconds since the epoch).
    public var firstJoinedAt: Int64
    /// When the last device left, nil while in the call.
    public var lastLeftAt: Int64?
    /// Time with at least one device in the call, in milliseconds.
    public var inCallMilliseconds: Int64
    /// Time as the active speaker the views showed, in milliseconds.
    public var speakingMilliseconds: Int64
    /// Time unmuted, with video on and sharing the screen while in the call, in milliseconds.
    public var audioMilliseconds: Int64
    public var videoMilliseconds: Int64
    public var presentingMilliseconds: Int64
    /// How many times the hand went up.
    public var handsRaised: Int

    /// The record of `participant` as of `asOf`, with the time it has been shown speaking since `speakingSince`
    /// when it is the shown speaker now.
    init(_ participant: Participant, asOf: Int64, speakingSince: Int64?) {
        var counted = participant
        counted.account(until: asOf)
        self.uid = participant.uid
        self.name = participant.name
        self.role = participant.role
        self.order = participant.order
        self.firstJoinedAt = participant.firstJoinedAt
        self.lastLeftAt = participant.leftAt
        self.inCallMilliseconds = counted.durationMilliseconds
        self.speakingMilliseconds = counted.speakingMilliseconds + max(0, asOf - (speakingSince ?? asOf))
        self.audioMilliseconds = counted.audioMilliseconds
        self.videoMilliseconds = counted.videoMilliseconds
        self.presentingMilliseconds = counted.presentingMilliseconds
        self.handsRaised = participant.handsRaised
    }
}

extension RoomReplica {
    /// Everyone who joined the room's current call (or its last, once it ended), in join order, with their totals
    /// as of `asOf` (log time; a time before the last entry counts nothing after the entry).
    ///
    /// - Parameter asOf: the time the totals run to, in milliseconds since the epoch.
    public func attendance(asOf: Int64) -> [AttendanceRecord] {
        self.state.joinOrder.compactMap { uid in
            guard let participant = self.state.participants[uid] else { return nil }
            let shown = self.heldSpeaker == uid && participant.isJoined
            return AttendanceRecord(participant, asOf: asOf, speakingSince: shown ? self.heldSince : nil)
        }
    }
}

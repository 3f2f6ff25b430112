import Foundation
import JSONCoding
import Observation

/// A room as SwiftUI binds to it: an `@Observable` model of one subscription, changed only on the main actor.
///
/// ```swift
/// let model = RollcallRoomModel(try await client.join(room: "standup"))
/// List(model.participants) { person in Text(person.name) }
/// ```
///
/// The subscription's changes arrive on the client's thread; the model takes them over to the main actor and reads
/// the roster there once per applied snapshot or patch, so a patch that touches several participants and the room
/// entry is one observed change, and a property is set only when its value changed. Several patches that arrive
/// before the main actor runs are read as one change.
@MainActor
@Observable
public final class RollcallRoomModel {
    /// The subscription this model shows; requests (`setAudioMuted`, `perform(action:)`, `leave()`) go through it.
    public let subscription: RoomSubscription
    /// The roster's participants in join order, as the view delivers them.
    public private(set) var participants: [RosterParticipant] = []
    /// The room entry of the roster (`callType`, `recording`, `activeSpeaker`, `participantCount`, …).
    public private(set) var roomState: JSONObject = JSONObject()
    /// What every view counts (the room entry's `counts`): in the call, hands raised, muted, on video, presenting,
    /// by role.
    public var counts: RollcallViewCounts { RollcallViewCounts(self.roomState["counts"]?.objectValue) }
    /// How many entries match the view's filter before its `offset` and `limit` (the room entry's `total`).
    public var viewTotal: Int? { self.roomState["total"]?.intValue.map { Int($0) } }
    /// What the user may do here (from the join's answer): gate buttons on it.
    public private(set) var rights: RollcallRights?
    /// The roster's sequence number.
    public private(set) var rosterSequence: UInt64 = 0
    /// The last room event received, replays after a resume included.
    public private(set) var lastEvent: RollcallEvent?
    /// Whether the connection dropped and the roster waits for the subscription to resume.
    public private(set) var isReconnecting = false
    /// Where the join waits in the room's waiting room (from 1), while it waits; nil once the roster arrived.
    public private(set) var waitingPosition: Int?
    /// Whether the subscription ended (left, refused on rejoin, or the client closed), and why when it failed.
    public private(set) var hasEnded = false
    /// Why the subscription ended, when an error ended it.
    public private(set) var endError: RollcallError?
    /// Why the gateway took the subscription out of the room, when it did (`.replaced`: show "you joined from another
    /// window").
    public private(set) var unsubscribeReason: RollcallUnsubscribeReason?

    @ObservationIgnored private let relay = RoomModelRelay()

    /// Creates the model and starts following the subscription.
    ///
    /// - Parameters:
    ///   - subscription: the room to show.
    public init(_ subscription: RoomSubscription) {
        self.subscription = subscription
        self.refresh()
        self.relay.start(subscription, model: self)
    }

    /// The participant with this uid, if the view shows it.
    ///
    /// - Parameters:
    ///   - uid: the participant's uid (`RosterParticipant.id`).
    public func participant(_ uid: String) -> RosterParticipant? {
        self.participants.first { $0.id == uid }
    }

    /// Reads the subscription's roster and sets what changed.
    func refresh() {
        let roster = self.subscription.roster
        let sequence = roster?.sequence ?? 0
        let participants = roster?.participants ?? []
        if participants != self.participants { self.participants = participants }
        let roomState = roster?.roomState ?? JSONObject()
        if roomState != self.roomState { self.roomState = roomState }
        let rights = self.subscription.rights
        if rights != self.rights { self.rights = rights }
        if sequence != self.rosterSequence { self.rosterSequence = sequence }
        if roster != nil, self.waitingPosition != nil { self.waitingPosition = nil }
    }

    /// Takes over a change that is not the roster's.
    func take(_ change: RoomChange) {
        switch change {
        case .eventReceived(let event): self.lastEvent = event
        case .connectionLost: if !self.isReconnecting { self.isReconnecting = true }
        case .resumed: if self.isReconnecting { self.isReconnecting = false }
        case .waiting(let position): self.waitingPosition = position
        case .unsubscribed(let reason):
            self.unsubscribeReason = reason
        case .ended(let error):
            self.endError = error
            self.hasEnded = true
            self.isReconnecting = false
        case .snapshotReplaced, .participantAdded, .participantUpdated, .participantRemoved, .roomUpdated,
            .driftDetected:
            break
        }
    }
}

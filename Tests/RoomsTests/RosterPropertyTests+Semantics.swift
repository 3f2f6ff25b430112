import JSONCoding
import RoomsTesting
import TokenAuth

@testable import Rooms

/// What the random call's semantics steps did, so the test can insist that they did something.
struct SemanticsCounts: CustomStringConvertible {
    var hiddenActions = 0
    var watchingHostActions = 0
    var roleRefreshes = 0
    var roomsDropped = 0

    mutating func add(_ other: SemanticsCounts) {
        self.hiddenActions += other.hiddenActions
        self.watchingHostActions += other.watchingHostActions
        self.roleRefreshes += other.roleRefreshes
        self.roomsDropped += other.roomsDropped
    }

    var description: String {
        "hidden \(self.hiddenActions), watching host \(self.watchingHostActions), role refreshes "
            + "\(self.roleRefreshes), rooms dropped \(self.roomsDropped)"
    }
}

/// The random call's steps for who may see and do what: a hidden recorder bot in the call, the host moderating
/// while it watches as an observer, and token refreshes that change a user's role or no longer name the room; and
/// the checks that nothing about a hidden participant reaches an observer.
extension RandomRosterCall {
    /// The hidden recorder's uid and device.
    static let recorder = (uid: "b-rec", device: "rec")

    func playSemanticsStep() throws {
        switch self.random(4) {
        case 0: try self.joinOrActAsHiddenRecorder()
        case 1: try self.actAsWatchingHost()
        default: try self.refreshAToken()
        }
    }

    /// The hidden recorder joins, or reports itself speaking, or switches the recording.
    private func joinOrActAsHiddenRecorder() throws {
        let key = "\(Self.recorder.uid)/\(Self.recorder.device)"
        guard let session = self.devices[key] else {
            let session = try self.harness.connect(
                Self.recorder.uid, rooms: ["r": .bot], caps: ["hidden", "record", "speaker"])
            self.harness.send(session, ["type": "join", "room": "r", "device": .string(Self.recorder.device)])
            if self.harness.transport.messages[session]?.first?["type"] == "ack" {
                self.devices[key] = session
            } else {
                self.harness.close(session, cleanly: true)
            }
            return
        }
        self.semanticsCounts.hiddenActions += 1
        switch self.random(3) {
        case 0: self.send(from: session, ["type": "speaker", "room": "r", "uid": .string(Self.recorder.uid)])
        case 1: self.send(from: session, ["type": "media", "room": "r", "recording": .bool(self.random(2) == 0)])
        default: self.send(from: session, ["type": "state", "room": "r", "handRaised": .bool(self.random(2) == 0)])
        }
    }

    /// The host watches as an observer (taking notable events), then moderates from there.
    private func actAsWatchingHost() throws {
        if let session = self.watchingHost, self.harness.closeCode(session) == nil {
            self.moderate(from: session)
            if self.harness.drainWithPatches(session).contains(where: { $0["type"] == "ack" }) {
                self.semanticsCounts.watchingHostActions += 1
            }
            return
        }
        let session = try self.harness.connect("u-host", name: "Host", rooms: ["r": .moderator])
        self.harness.send(session, ["type": "join", "room": "r", "as": "observer", "events": "notable"])
        if self.harness.drainWithPatches(session).first?["type"] == "ack" {
            self.watchingHost = session
        } else {
            self.harness.close(session, cleanly: true)
        }
    }

    /// A participant's connection (or the watching host's) refreshes its token: another role in the room, or a
    /// token that no longer names it, which takes the connection out of the room.
    private func refreshAToken() throws {
        var candidates = self.devices.filter { $0.key.hasPrefix(Self.recorder.uid) == false }.sorted { $0.key < $1.key }
        if let host = self.watchingHost { candidates.append(("u-host/watch", host)) }
        guard !candidates.isEmpty else { return }
        let (key, session) = candidates[self.random(candidates.count)]
        let uid = String(key.prefix { $0 != "/" })
        let dropsRoom = self.random(3) == 0
        let rooms: [String: TokenRole] =
            dropsRoom ? ["elsewhere": .participant] : ["r": self.pick([.moderator, .participant, .viewer])]
        let token = try self.harness.token(uid, name: Self.users.first { $0.uid == uid }?.name, rooms: rooms)
        // A device that left (or was removed) keeps its connection, out of the room.
        let wasInRoom = self.harness.gateway.sessions[session]?.subscriptions["r"] != nil
        self.harness.send(session, ["type": "auth", "token": .string(token)])
        let answer = self.harness.drainWithPatches(session)
        guard wasInRoom else { return }
        guard dropsRoom else {
            self.semanticsCounts.roleRefreshes += 1
            return
        }
        guard answer.contains(where: { $0["type"] == "unsubscribed" && $0["reason"] == "access_revoked" }) else {
            throw self.fail("\(key) kept the room after a refresh without it: \(answer)")
        }
        self.semanticsCounts.roomsDropped += 1
        // Out of the room, the connection has nothing left to do here.
        self.harness.close(session, cleanly: true)
        if session == self.watchingHost { self.watchingHost = nil } else { self.devices[key] = nil }
    }

    /// An event an observer receives is never about a hidden participant, nor names one as its actor or as the
    /// shown speaker.
    func checkAudience(of message: JSONValue, receivedBy uid: String) throws {
        let data = message["data"]
        let subject = data?["uid"]?.stringValue
        let aboutHidden =
            data?["participant"]?["permissions"]?["hidden"] == true || subject == Self.recorder.uid
            || message["actor"]?.stringValue == Self.recorder.uid
        if aboutHidden && subject != uid {
            throw self.fail("\(uid) received an event about a hidden participant: \(message)")
        }
    }

    /// No observer's mirror shows a hidden participant, as an entry or as the shown speaker: never the recorder,
    /// and, once the changes have gone out, nobody a moderator hid.
    func checkHiddenStayHidden() throws {
        guard let state = self.harness.gateway.roomState("r") else { return }
        var hidden: Set<String> = [Self.recorder.uid]
        if !self.harness.gateway.hasPendingRosterChanges(room: "r") {
            hidden.formUnion(state.participants.values.filter(\.permissions.hidden).map(\.uid))
        }
        for observer in self.observers {
            guard observer.session != nil, let store = observer.store else { continue }
            let shown = Set((store.roster["participants"]?.objectValue?.keys).map(Array.init) ?? [])
            let speaker = store.roster["room"]?["activeSpeaker"]?.stringValue
            if !shown.isDisjoint(with: hidden) || speaker.map(hidden.contains) == true {
                throw self.fail("\(observer.uid) (\(observer.spec)) shows a hidden participant: \(store.roster)")
            }
        }
    }
}

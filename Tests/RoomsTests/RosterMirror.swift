import JSONCoding
import RollcallClient
import RoomsTesting
import Testing
import TokenAuth

@testable import Rooms

/// A watcher that mirrors a room's roster with `RosterStore`, from its snapshot and every patch after it.
final class RosterMirror {
    let harness: RoomsNodeHarness
    let session: SessionID
    let room: String
    private(set) var store: RosterStore
    /// Every snapshot, patch and event received since the join, in order.
    private(set) var received: [JSONValue] = []

    /// Joins `room` as an observer with `view` and takes the snapshot.
    init(
        _ harness: RoomsNodeHarness,
        uid: String = "o-watch",
        room: String = "r",
        view: JSONValue = ["filter": "all"],
        events: String = "all",
        role: TokenRole = .viewer,
        caps: [String] = []
    ) throws {
        self.harness = harness
        self.room = room
        self.session = try harness.connect(uid, rooms: [room: role], caps: caps)
        harness.send(
            self.session,
            [
                "type": "join", "id": "w", "room": .string(room), "as": "observer", "view": view,
                "events": .string(events),
            ])
        let answer = harness.drainWithPatches(self.session)
        guard answer.first?["type"] == "ack", let snapshot = answer.first(type: "snapshot") else {
            throw HarnessError.unexpected("observer join: \(answer)")
        }
        self.store = try RosterStore(snapshot: snapshot)
    }

    /// Applies what arrived since the last call (a live connection: each patch must start where the mirror is)
    /// and returns it.
    @discardableResult
    func sync() throws -> [JSONValue] {
        let messages = self.harness.drainWithPatches(self.session)
        for message in messages {
            switch message["type"]?.stringValue {
            case "snapshot":
                self.store = try RosterStore(snapshot: message)
            case "patch":
                #expect(message["from"]?.intValue == Int64(self.store.sequence), "a live patch skipped something")
                try self.store.apply(patch: message)
            default:
                break
            }
        }
        self.received += messages
        return messages
    }

    /// The patches among `messages`.
    static func patches(_ messages: [JSONValue]) -> [JSONValue] { messages.filter { $0["type"] == "patch" } }

    /// The participants object of the mirrored roster.
    var participants: JSONObject { self.store.roster["participants"]?.objectValue ?? JSONObject() }

    /// The mirrored roster equals what the server renders for `spec` now.
    func matchesServer(_ spec: RosterViewSpec = .all) -> Bool {
        self.harness.gateway.renderedView(room: self.room, spec: spec) == .object(self.store.roster)
    }
}

extension RoomsNodeHarness {
    /// Joins a participant with a small view and no events (so crowds stay cheap to simulate).
    @discardableResult
    func joinQuietly(
        _ uid: String, name: String? = nil, role: TokenRole = .participant, room: String = "r",
        device: String = "web"
    ) throws -> SessionID {
        let session = try self.connect(uid, name: name, rooms: [room: role])
        self.send(
            session,
            [
                "type": "join", "room": .string(room), "device": .string(device), "events": "none",
                "view": ["filter": "speakers"],
            ])
        guard self.transport.drain(session).first?["type"] == "ack" else {
            throw HarnessError.unexpected("\(uid) could not join")
        }
        return session
    }
}

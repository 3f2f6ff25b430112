// A program outside the repository that uses the RollcallClient product, as an app would: the interoperability
// tests build it in a throwaway package (test_swift_package.py) and run it against a live gateway.
//
//   rollcall-probe smoke URL TOKEN ROOM    joins ROOM, prints the roster, waits for a patch, leaves
//   rollcall-probe mirror URL TOKEN ROOM   watches ROOM; each "dump" line on stdin prints the roster as JSON
//   rollcall-probe model URL TOKEN ROOM    joins ROOM and follows it through the observable RollcallRoomModel on the
//                                          main actor until a second participant shows, then leaves
//   rollcall-probe urlsession URL TOKEN ROOM  connects over the URLSession transport and joins ROOM, or says why not
import Foundation
import JSONCoding
import RollcallClient

/// Writes one line to stdout at once (the tests read it while the program runs).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Counts a subscription's changes by kind, from the client's thread.
final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    func add(_ change: RoomChange) {
        let kind: String
        switch change {
        case .driftDetected: kind = "drifts"
        case .snapshotReplaced: kind = "snapshots"
        case .participantAdded, .participantUpdated, .participantRemoved, .roomUpdated: kind = "changes"
        case .eventReceived: kind = "events"
        case .connectionLost, .resumed, .unsubscribed, .ended: kind = "connection"
        case .waiting: kind = "waiting"
        }
        self.lock.withLock { self.counts[kind, default: 0] += 1 }
    }

    func count(_ kind: String) -> Int { self.lock.withLock { self.counts[kind, default: 0] } }
}

let arguments = CommandLine.arguments
guard arguments.count == 5, ["smoke", "mirror", "model", "urlsession"].contains(arguments[1]) else {
    emit("usage: rollcall-probe smoke|mirror|model|urlsession URL TOKEN ROOM")
    exit(2)
}
let (mode, url, token, roomID) = (arguments[1], arguments[2], arguments[3], arguments[4])

// Every run ends within a minute, whatever happens.
Thread.detachNewThread {
    Thread.sleep(forTimeInterval: 60)
    emit("error timed out")
    exit(3)
}

/// Joins the room and follows it through the observable model, as a SwiftUI list would: prints the model's
/// participants once it shows someone besides the probe (its changes are made on the main actor, where this runs).
@MainActor
func followThroughTheModel(_ client: Rollcall) async throws {
    let model = RollcallRoomModel(try await client.join(room: roomID, view: .all, events: .none))
    emit("model \(model.participants.map(\.id).joined(separator: ","))")
    while model.participants.count < 2 { try await Task.sleep(nanoseconds: 20_000_000) }
    let rights = model.rights.map { "operator=\($0.isOperator) actions=\($0.actions.count)" } ?? "none"
    emit("model \(model.participants.map(\.id).joined(separator: ",")) seq=\(model.rosterSequence) \(rights)")
    try await model.subscription.leave()
    emit("left ended=\(model.subscription.isActive == false)")
}

if mode == "urlsession" {
    // The URLSession transport, chosen explicitly (it is the default only where RollcallConnection does not exist).
    let client = Rollcall(
        configuration: RollcallClientConfiguration(
            endpoint: try RollcallEndpoint(url: url), token: token, device: "probe",
            transport: {
                RollcallURLSessionTransport(request: $0, options: RollcallURLSessionOptions(pingInterval: 5))
            },
            reconnect: .never, requestTimeout: 10))
    do {
        try await client.connect()
        let room = try await client.join(room: roomID)
        emit("joined \(room.participants.map(\.id).joined(separator: ","))")
        try await room.leave()
    } catch {
        emit("failed \(error)")
    }
    await client.close()
    emit("closed")
    exit(0)
}

do {
    let client = Rollcall(
        configuration: RollcallClientConfiguration(
            endpoint: try RollcallEndpoint(url: url), token: token, device: "probe", requestTimeout: 10))
    try await client.connect()
    if mode == "model" {
        try await followThroughTheModel(client)
        await client.close()
        emit("closed")
        exit(0)
    }
    let tally = Tally()
    if mode == "smoke" {
        let room = try await client.join(room: roomID, view: .all, events: .none)
        let changes = room.changes
        room.onChange { tally.add($0) }
        // The snapshot may trail a join by one coalescing window: the probe's own entry can come in a patch.
        let me = client.uid ?? ""
        var joined = false
        if room.participant(me) != nil {
            joined = true
            emit("joined \(room.rosterSequence) \(room.participants.map(\.id).joined(separator: ","))")
        }
        waiting: for await change in changes {
            switch change {
            case .participantAdded(let uid) where uid == me, .participantUpdated(let uid) where uid == me:
                if !joined {
                    joined = true
                    emit("joined \(room.rosterSequence) \(room.participants.map(\.id).joined(separator: ","))")
                }
            case .participantAdded, .participantUpdated:
                if joined { break waiting }
            default:
                break
            }
        }
        let store = room.roster
        let verified = store.map { $0.checksum == $0.serverChecksum } ?? false
        let people = room.participants.map(\.id).joined(separator: ",")
        emit("patched \(room.rosterSequence) \(store?.checksum ?? "") verified=\(verified) \(people)")
        try await room.leave()
        emit("left drifts=\(tally.count("drifts"))")
    } else {
        let room = try await client.join(room: roomID, as: .observer, events: .none)
        room.onChange { tally.add($0) }
        emit("ready \(room.rosterSequence)")
        while let line = readLine(), line == "dump" {
            let store = room.roster
            var report = JSONObject()
            report["seq"] = .int(Int64(store?.sequence ?? 0))
            report["checksum"] = .string(store?.checksum ?? "")
            report["serverChecksum"] = .string(store?.serverChecksum ?? "")
            report["roster"] = .object(store?.roster ?? JSONObject())
            report["drifts"] = .int(Int64(tally.count("drifts")))
            report["snapshots"] = .int(Int64(tally.count("snapshots")))
            report["changes"] = .int(Int64(tally.count("changes")))
            emit(JSONWriter.string(.object(report)))
        }
    }
    await client.close()
    emit("closed")
} catch {
    emit("error \(error)")
    exit(1)
}

import JSONCoding
import Rooms
import TokenAuth
import WebSocketCore

/// Measures what roster traffic costs on the wire, in-process and deterministically (no sockets, a manual clock):
/// the bytes one mute costs a subscriber of a large room as a patch against the full snapshot a naive gateway
/// would resend, and the frames and bytes a subscriber receives during a storm of joins.
public enum RosterWireBenchmark {
    /// The figures, in bytes on the wire (WebSocket frame headers included, server frames are unmasked).
    public struct Report: Sendable {
        public var participants: Int
        public var snapshotBytes: Int
        public var mutePatchBytes: Int
        public var mutePatchFrames: Int
        /// The size of the mute's merge patch itself (the `patch` member), in bytes.
        public var mutePatchObjectBytes: Int
        /// With the waiting room on: the patch a subscriber gets when a user arrives in it (the count moves), and
        /// when a moderator admits the user (the user's entry, the count gone, the counts and total moved).
        public var arrivalPatchBytes: Int
        public var admissionPatchBytes: Int
        public var stormJoins: Int
        public var stormMilliseconds: Int64
        public var windowMilliseconds: Int64
        public var stormFrames: Int
        public var stormBytes: Int
        public var stormFramesWithoutCoalescing: Int
        public var stormBytesWithoutCoalescing: Int

        /// A human-readable summary.
        public var text: String {
            """
            roster wire size, \(self.participants) participants in the room:
              full snapshot                 \(self.snapshotBytes) bytes
              one mute as a patch           \(self.mutePatchBytes) bytes in \(self.mutePatchFrames) frame(s)  \
            (\(self.snapshotBytes / max(1, self.mutePatchBytes))x smaller; the merge patch itself \
            \(self.mutePatchObjectBytes) bytes)
              one arrival in the waiting room \(self.arrivalPatchBytes) bytes; its admission \(self.admissionPatchBytes) bytes
            storm of \(self.stormJoins) joins over \(self.stormMilliseconds) ms, per subscriber:
              coalesced (\(self.windowMilliseconds) ms window)    \(self.stormFrames) frames, \(self.stormBytes) bytes
              without coalescing            \(self.stormFramesWithoutCoalescing) frames, \
            \(self.stormBytesWithoutCoalescing) bytes
            """
        }

        /// The figures as one JSON object.
        public var json: String {
            JSONWriter.string(
                .object(
                    JSONObject(uniqueKeysWithValues: [
                        ("participants", .int(Int64(self.participants))),
                        ("snapshotBytes", .int(Int64(self.snapshotBytes))),
                        ("mutePatchBytes", .int(Int64(self.mutePatchBytes))),
                        ("mutePatchFrames", .int(Int64(self.mutePatchFrames))),
                        ("mutePatchObjectBytes", .int(Int64(self.mutePatchObjectBytes))),
                        ("arrivalPatchBytes", .int(Int64(self.arrivalPatchBytes))),
                        ("admissionPatchBytes", .int(Int64(self.admissionPatchBytes))),
                        ("stormJoins", .int(Int64(self.stormJoins))),
                        ("stormMilliseconds", .int(self.stormMilliseconds)),
                        ("windowMilliseconds", .int(self.windowMilliseconds)),
                        ("stormFrames", .int(Int64(self.stormFrames))),
                        ("stormBytes", .int(Int64(self.stormBytes))),
                        ("stormFramesWithoutCoalescing", .int(Int64(self.stormFramesWithoutCoalescing))),
                        ("stormBytesWithoutCoalescing", .int(Int64(self.stormBytesWithoutCoalescing))),
                    ])
                )
            )
        }
    }

    /// Counts frames and bytes per session.
    private final class CountingTransport: RoomsTransport {
        var frames: [SessionID: Int] = [:]
        var bytes: [SessionID: Int] = [:]
        var last: [SessionID: [UInt8]] = [:]

        func send(_ text: [UInt8], to sessions: [SessionID]) {
            let wire = WebSocketFrameHeader.encodedSize(payloadLength: text.count, masked: false) + text.count
            for session in sessions {
                self.frames[session, default: 0] += 1
                self.bytes[session, default: 0] += wire
                self.last[session] = text
            }
        }

        func close(_ session: SessionID, code: UInt16, reason: String) {}

        func reset() {
            self.frames = [:]
            self.bytes = [:]
        }
    }

    /// Runs the measurement.
    ///
    /// - Parameters:
    ///   - participants: the size of the room for the mute measurement.
    ///   - stormJoins: the number of joins in the storm.
    ///   - stormMilliseconds: how long the storm lasts (joins are spread evenly).
    ///   - windowMilliseconds: the coalescing window.
    public static func run(
        participants: Int = 1000,
        stormJoins: Int = 1000,
        stormMilliseconds: Int64 = 1000,
        windowMilliseconds: Int64 = 50
    ) throws -> Report {
        let large = try Self.largeRoom(participants: participants, window: windowMilliseconds)
        let (stormFrames, stormBytes) = try Self.storm(
            joins: stormJoins, over: stormMilliseconds, window: windowMilliseconds)
        let (plainFrames, plainBytes) = try Self.storm(joins: stormJoins, over: stormMilliseconds, window: 0)
        return Report(
            participants: participants, snapshotBytes: large.snapshotBytes, mutePatchBytes: large.muteBytes,
            mutePatchFrames: large.muteFrames, mutePatchObjectBytes: large.muteObjectBytes,
            arrivalPatchBytes: large.arrivalBytes, admissionPatchBytes: large.admissionBytes, stormJoins: stormJoins,
            stormMilliseconds: stormMilliseconds,
            windowMilliseconds: windowMilliseconds, stormFrames: stormFrames, stormBytes: stormBytes,
            stormFramesWithoutCoalescing: plainFrames, stormBytesWithoutCoalescing: plainBytes
        )
    }

    private final class Setup {
        let transport = CountingTransport()
        let gateway: RoomsNode
        let signer: TokenSigner
        var nextSession: UInt64 = 1

        init(window: Int64) throws {
            let key = try TokenKey(keyID: "bench", secret: "roster-wire-benchmark-key-0123456789")
            self.signer = TokenSigner(key: key)
            var configuration = RoomsConfiguration()
            configuration.patchWindowMilliseconds = window
            configuration.roomCapacity = 1_000_000
            configuration.maximumSubscribersPerRoom = 1_000_000
            let verifier = try TokenVerifier(keys: [key])
            let box = ClockBox()
            self.gateway = RoomsNode(
                configuration: configuration, verifier: verifier, transport: self.transport,
                clock: { box.now })
            self.clockBox = box
        }

        private let clockBox: ClockBox

        func advance(_ milliseconds: Int64) {
            self.clockBox.now += milliseconds
            self.gateway.tick()
        }

        func open(_ uid: String, room: String, role: TokenRole) throws -> SessionID {
            let id = SessionID(self.nextSession)
            self.nextSession += 1
            let claims = TokenClaims(
                subject: uid, expiresAt: self.clockBox.now / 1000 + 3600, name: "User \(uid)",
                rooms: [room: role])
            self.gateway.sessionOpened(id, token: try self.signer.sign(claims))
            return id
        }

        func send(_ id: SessionID, _ text: String) {
            var text = text
            text.withUTF8 { self.gateway.sessionReceived(id, text: UnsafeRawBufferPointer($0)) }
        }
    }

    private final class ClockBox: @unchecked Sendable {
        var now: Int64 = 1_764_460_800_000
    }

    /// What one subscriber of a large room receives: its snapshot, one mute, and with the waiting room on one arrival
    /// and its admission.
    private struct LargeRoom {
        var snapshotBytes: Int
        var muteBytes: Int
        var muteFrames: Int
        var muteObjectBytes: Int
        var arrivalBytes = 0
        var admissionBytes = 0
    }

    private static func largeRoom(participants: Int, window: Int64) throws -> LargeRoom {
        let setup = try Setup(window: window)
        var ids: [SessionID] = []
        for index in 0..<participants {
            let id = try setup.open("user-\(index)", room: "big", role: .participant)
            // The participants mirror a small view: only the observer's full roster is measured, and 1,000 joins
            // with full snapshots each would cost more to set up than the measurement itself.
            setup.send(id, #"{"type":"join","room":"big","events":"none","view":{"filter":"speakers"}}"#)
            ids.append(id)
            setup.advance(1)
        }
        setup.advance(window + 1)
        let observer = try setup.open("observer", room: "big", role: .viewer)
        setup.transport.reset()
        setup.send(observer, #"{"type":"join","room":"big","as":"observer","events":"none"}"#)
        let snapshotText = setup.transport.last[observer] ?? []
        let snapshotBytes =
            WebSocketFrameHeader.encodedSize(payloadLength: snapshotText.count, masked: false)
            + snapshotText.count
        setup.transport.reset()
        setup.send(ids[participants / 2], #"{"type":"state","room":"big","audioMuted":true}"#)
        setup.advance(window + 1)
        let patch = (try? JSONParser.parse(setup.transport.last[observer] ?? []))?["patch"]
        let patchBytes = patch.map { JSONWriter.bytes($0).count } ?? 0
        var room = LargeRoom(
            snapshotBytes: snapshotBytes, muteBytes: setup.transport.bytes[observer] ?? 0,
            muteFrames: setup.transport.frames[observer] ?? 0, muteObjectBytes: patchBytes)
        // The waiting room: a moderator turns it on, a guest arrives, the moderator admits the guest.
        let host = try setup.open("host", room: "big", role: .moderator)
        setup.send(host, #"{"type":"join","room":"big","as":"observer","events":"none","view":{"filter":"speakers"}}"#)
        setup.send(host, #"{"type":"action","room":"big","action":"require_admission"}"#)
        setup.advance(window + 1)
        let guest = try setup.open("guest", room: "big", role: .participant)
        setup.transport.reset()
        setup.send(guest, #"{"type":"join","room":"big","events":"none","view":{"filter":"speakers"}}"#)
        setup.advance(window + 1)
        room.arrivalBytes = setup.transport.bytes[observer] ?? 0
        setup.transport.reset()
        setup.send(host, #"{"type":"action","room":"big","action":"admit","target":"guest"}"#)
        setup.advance(window + 1)
        room.admissionBytes = setup.transport.bytes[observer] ?? 0
        return room
    }

    private static func storm(joins: Int, over milliseconds: Int64, window: Int64) throws -> (Int, Int) {
        let setup = try Setup(window: window)
        let observer = try setup.open("observer", room: "storm", role: .viewer)
        setup.send(observer, #"{"type":"join","room":"storm","as":"observer","events":"none"}"#)
        setup.transport.reset()
        let step = max(1, milliseconds / Int64(max(1, joins)))
        for index in 0..<joins {
            let id = try setup.open("joiner-\(index)", room: "storm", role: .participant)
            setup.send(id, #"{"type":"join","room":"storm","events":"none"}"#)
            setup.advance(step)
        }
        setup.advance(window + 1)
        return (setup.transport.frames[observer] ?? 0, setup.transport.bytes[observer] ?? 0)
    }
}

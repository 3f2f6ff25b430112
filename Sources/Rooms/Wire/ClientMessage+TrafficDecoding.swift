import JSONCoding

extension ClientMessageDecoder {
    /// A client message as read: the request, or the error to answer it with (and the request's id, when it could
    /// be read).
    enum Reading {
        case request(ClientRequest)
        case refused(requestID: JSONValue?, GatewayError)
    }

    /// Reads one text message, the one way every entry point does (the gateway's, the rooms thread router's): a traffic
    /// message by scanning its bytes (`decodeTraffic`), any other through the JSON parser and `decode(_:)`.
    ///
    /// - Parameter text: the message's bytes (UTF-8, validated by the transport).
    /// - Returns: the request, or the refusal to answer.
    @inline(__always)
    func read(_ text: UnsafeRawBufferPointer) -> Reading {
        if let request = self.decodeTraffic(text) { return .request(request) }
        let value: JSONValue
        do {
            value = try JSONParser.parse(text)
        } catch {
            return .refused(requestID: nil, .badRequest("malformed JSON: \(error)"))
        }
        do {
            return .request(try self.decode(value))
        } catch {
            return .refused(requestID: Self.requestID(value), error)
        }
    }

    /// Decodes a traffic message (`state`, `speaker`, `media`, `meeting`) straight from its bytes, without a JSON
    /// tree; nil for any other message, and for any that this path does not take as it stands (see
    /// `TrafficMessageScanner`) or that `decode(_:)` would refuse. The caller then parses the message and decodes it
    /// with `decode(_:)`, so refusals and their wording have one source.
    ///
    /// Whatever this returns, `decode(_:)` returns for the same bytes.
    ///
    /// - Parameter bytes: the message's UTF-8 text.
    /// - Returns: the request, or nil to take the general path.
    func decodeTraffic(_ bytes: UnsafeRawBufferPointer) -> ClientRequest? {
        TrafficMessageScanner.scan(bytes) { members in self.decodeTraffic(members) }
    }

    private func decodeTraffic(_ members: TrafficMessageScanner) -> ClientRequest? {
        guard case .string(let typeRange)? = members[.type], self.isShort(typeRange) else { return nil }
        var id: JSONValue?
        switch members[.id] {
        case nil: id = nil
        case .int(let number)?: id = .int(number)
        case .string(let range)? where self.isShort(range): id = .string(members.text(range))
        default: return nil
        }
        let message: ClientMessage?
        if members.string(typeRange, is: "state") {
            message = self.stateMessage(members)
        } else if members.string(typeRange, is: "speaker") {
            message = self.speakerMessage(members)
        } else if members.string(typeRange, is: "media") {
            message = self.mediaMessage(members)
        } else if members.string(typeRange, is: "meeting") {
            message = self.meetingMessage(members)
        } else {
            message = nil
        }
        return message.map { ClientRequest(id: id, message: $0) }
    }

    private func stateMessage(_ members: TrafficMessageScanner) -> ClientMessage? {
        guard members.hasOnly([.type, .id, .room, .mid, .cameraFacing], flags: \.isSetByParticipant),
            let room = self.id(members, .room)
        else { return nil }
        var flags: [ParticipantFlag: Bool] = [:]
        for (ordinal, flag) in ParticipantFlag.ordered.enumerated() {
            switch members.flag(ordinal: ordinal) {
            case nil: continue
            case .bool(let value)?: flags[flag] = value
            default: return nil
            }
        }
        var mid: String?
        if members[.mid] != nil {
            guard let text = self.id(members, .mid) else { return nil }
            mid = text
        }
        var facing: String?
        switch members[.cameraFacing] {
        case nil: break
        case .string(let range)? where self.isShort(range) && members.string(range, is: "front"): facing = "front"
        case .string(let range)? where self.isShort(range) && members.string(range, is: "back"): facing = "back"
        default: return nil
        }
        guard !flags.isEmpty || mid != nil || facing != nil else { return nil }
        return .command(room: room, .updateState(flags: flags, mid: mid, cameraFacing: facing))
    }

    private func speakerMessage(_ members: TrafficMessageScanner) -> ClientMessage? {
        guard members.hasOnly([.type, .id, .room, .uid]), let room = self.id(members, .room) else { return nil }
        switch members[.uid] {
        case .null?:
            return .command(room: room, .reportSpeaker(uid: nil))
        default:
            guard let uid = self.id(members, .uid) else { return nil }
            return .command(room: room, .reportSpeaker(uid: uid))
        }
    }

    private func mediaMessage(_ members: TrafficMessageScanner) -> ClientMessage? {
        guard members.hasOnly([.type, .id, .room, .recording, .audioMode, .uid]), let room = self.id(members, .room)
        else { return nil }
        var recording: Bool?
        switch members[.recording] {
        case nil: break
        case .bool(let value)?: recording = value
        default: return nil
        }
        var audioMode: String?
        if members[.audioMode] != nil {
            guard let mode = self.id(members, .audioMode), Participant.audioModes.contains(mode) else { return nil }
            audioMode = mode
        }
        var uid: String?
        if members[.uid] != nil {
            guard let text = self.id(members, .uid) else { return nil }
            uid = text
        }
        guard recording != nil || audioMode != nil, uid == nil || audioMode != nil else { return nil }
        return .command(room: room, .media(recording: recording, audioMode: audioMode, uid: uid))
    }

    private func meetingMessage(_ members: TrafficMessageScanner) -> ClientMessage? {
        guard members.hasOnly([.type, .id, .group, .sessionId, .callType, .active, .text]),
            let group = self.id(members, .group), let session = self.id(members, .sessionId)
        else { return nil }
        var callType = "video"
        switch members[.callType] {
        case nil: break
        case .string(let range)? where self.isShort(range) && members.string(range, is: "video"): break
        case .string(let range)? where self.isShort(range) && members.string(range, is: "audio"): callType = "audio"
        default: return nil
        }
        var active = true
        switch members[.active] {
        case nil: break
        case .bool(let value)?: active = value
        default: return nil
        }
        var text: String?
        switch members[.text] {
        case nil: break
        case .string(let range)? where range.count <= self.configuration.maximumTextLength: text = members.text(range)
        default: return nil
        }
        return .command(
            room: group, .publishMeeting(sessionID: session, callType: callType, isActive: active, text: text))
    }

    /// Whether a string value is within `maximumIDLength`, the bound of every short string of a message.
    private func isShort(_ range: Range<Int>) -> Bool { range.count <= self.configuration.maximumIDLength }

    /// The id in `member`: a string of at most `maximumIDLength` bytes, not empty, without spaces or control
    /// characters; nil when absent or anything else.
    private func id(_ members: TrafficMessageScanner, _ member: TrafficMessageScanner.Member) -> String? {
        guard case .string(let range)? = members[member], self.isShort(range), members.isID(range)
        else { return nil }
        return members.text(range)
    }
}

import Foundation
import HTTPCore
import JSONCoding

/// `rollcall ctl`: drives a running gateway through its server API.
enum CtlCommand {
    static let help = """
        USAGE: rollcall ctl [--url URL] [--api-key KEY] COMMAND [ARGUMENTS] [OPTIONS]

        Talks to a running gateway through its server API (docs/API.md) and prints the JSON answer. Exits 0 on a
        2xx answer, 1 on an error answer (printed to stderr), 78 on a usage or connection error.

        COMMANDS:
          rooms                          list the rooms with their occupancy and sequence numbers
          room ROOM                      a room's state and roster
          meeting ROOM --session-id ID   publish a meeting message into ROOM (the meeting's group)
          event ROOM EVENT-OPTION        publish a room event: --recording, --audio-mode, --speaker or --no-speaker
          action ROOM ACTION             a moderator action: mute, mute_all, lower_hand, lower_all_hands, ask_unmute,
                                         spotlight, unspotlight, remove, ban, unban, promote, demote, end_session,
                                         lock, unlock, floor, open_floor, stop_share, hand_floor,
                                         require_admission, open_admission, admit, admit_all, deny, deny_all
          permissions ROOM UID SETTING...
                                         set a participant's permissions: unmute=, share=, meetings=, hidden= with
                                         true or false
          attributes ROOM UID CHANGE...  set a participant's attributes: KEY=VALUE sets, a bare KEY removes
          metadata ROOM CHANGE...        set the room's metadata: KEY=VALUE sets, a bare KEY removes
          lock ROOM                      lock the room: new joins into the call are refused with ERR_ROOM_LOCKED
                                         but for moderators, admins and bots with 'lock' (the action lock)
          unlock ROOM                    unlock the room (the action unlock)
          attendance ROOM                who attended the room's current or last call, with their totals (a page in
                                         join order: --after ORDER, --limit N)
          waiting ROOM                   who waits in the room's waiting room, in the order they arrived (a page:
                                         --after POSITION, --limit N); answer with action admit or deny
          disconnect UID                 close every connection of a user (close code 4009); they may reconnect

        OPTIONS:
          --url URL            the gateway, http://HOST:PORT[/PREFIX] (default http://127.0.0.1:8080)
          --api-key KEY        the API key's secret (default: the ROLLCALL_API_KEY environment variable)
          --session-id ID      meeting: the call session the meeting runs in (required)
          --call-type TYPE     meeting: audio or video (default video)
          --inactive           meeting: announce the meeting's end instead of its start
          --text TEXT          meeting: free text
          --recording on|off   event: start or stop recording
          --audio-mode MODE    event: set a participant's audio output (with --uid)
          --uid UID            event: whose audio output
          --speaker UID        event: set the active speaker
          --no-speaker         event: clear the active speaker
          --target UID         action: the participant acted on (all actions but mute_all and end_session)
          --hard               action mute: the participant cannot unmute itself until lifted
          --queue              action floor: a start beyond the floor waits in its queue instead of being refused
          --duration-ms MS     action mute --hard: lift the restriction after this long
          --reason TEXT        action, lock, unlock, disconnect: a reason recorded with the action or sent in the
                               close frame
          --after ORDER        attendance, waiting: the page after this cursor (the `next` of the page before)
          --limit N            attendance, waiting: at most N entries (1 to 1000, default 100); action floor: how
                               many may present at once (1 to 16, default 1)
          --if-seq SEQ         permissions, attributes, metadata: refused with ERR_CONFLICT (HTTP 409) if they
                               changed after sequence number SEQ
          -h, --help           show this help

        Actions run with admin rights and are recorded with the actor api:NAME, NAME the key's name.
        """

    static func run(_ arguments: [String]) -> Int32 {
        if arguments.isEmpty || arguments.contains("-h") || arguments.contains("--help") {
            print(Self.help)
            return arguments.isEmpty ? 64 : 0
        }
        var url = "http://127.0.0.1:8080"
        var apiKey = ProcessInfo.processInfo.environment["ROLLCALL_API_KEY"]
        var positional: [String] = []
        var options: [String: String] = [:]
        var flags: Set<String> = []
        let valueless: Set<String> = ["--inactive", "--no-speaker", "--hard", "--queue"]
        let known: Set<String> = [
            "--session-id", "--call-type", "--text", "--recording", "--audio-mode", "--uid", "--speaker", "--target",
            "--reason", "--duration-ms", "--if-seq", "--after", "--limit",
        ]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if valueless.contains(argument) {
                flags.insert(argument)
            } else if argument.hasPrefix("--") {
                index += 1
                guard index < arguments.count else { return CommandRunner.fail("\(argument) needs a value") }
                let value = arguments[index]
                switch argument {
                case "--url": url = value
                case "--api-key": apiKey = value
                default:
                    guard known.contains(argument) else {
                        return CommandRunner.fail("unknown option '\(argument)'\n\n\(Self.help)")
                    }
                    options[argument] = value
                }
            } else {
                positional.append(argument)
            }
            index += 1
        }
        guard let apiKey, !apiKey.isEmpty else {
            return CommandRunner.fail("ctl needs --api-key KEY (or ROLLCALL_API_KEY)")
        }
        let request: (method: String, path: String, body: JSONValue?)
        switch Self.request(positional, options: options, flags: flags) {
        case .success(let built): request = built
        case .failure(let message): return CommandRunner.fail("\(message)\n\n\(Self.help)")
        }
        do {
            let client = try BlockingHTTPClient(url: url)
            let response = try client.send(
                request.method,
                request.path,
                headers: [("Authorization", "Bearer \(apiKey)")],
                body: request.body.map { JSONWriter.bytes($0) }
            )
            let text = response.bodyText.hasSuffix("\n") ? response.bodyText : response.bodyText + "\n"
            if (200..<300).contains(response.status) {
                FileHandle.standardOutput.write(Data(text.utf8))
                return 0
            }
            FileHandle.standardError.write(Data("rollcall: HTTP \(response.status): \(text)".utf8))
            return 1
        } catch {
            return CommandRunner.fail(error.description)
        }
    }

    enum Built {
        case success((method: String, path: String, body: JSONValue?))
        case failure(String)
    }

    /// The API request for a command line.
    static func request(_ positional: [String], options: [String: String], flags: Set<String>) -> Built {
        guard let command = positional.first else { return .failure("missing COMMAND") }
        let arguments = Array(positional.dropFirst())
        func segment(_ text: String) -> String { PercentEncoding.encode(text) }
        func object(_ pairs: [(String, JSONValue?)]) -> JSONValue {
            .object(JSONObject(uniqueKeysWithValues: pairs.compactMap { key, value in value.map { (key, $0) } }))
        }
        var ifSeq: JSONValue?
        if let text = options["--if-seq"] {
            guard let sequence = Int64(text), sequence >= 0 else {
                return .failure("--if-seq takes a sequence number (an integer ≥ 0)")
            }
            guard ["attributes", "metadata", "permissions"].contains(command) else {
                return .failure("--if-seq goes with attributes, metadata or permissions")
            }
            ifSeq = .int(sequence)
        }
        switch (command, arguments.count) {
        case ("rooms", 0):
            return .success(("GET", "/v1/api/rooms", nil))
        case ("room", 1):
            return .success(("GET", "/v1/api/rooms/\(segment(arguments[0]))", nil))
        case ("meeting", 1):
            guard let session = options["--session-id"] else { return .failure("meeting needs --session-id") }
            let body = object([
                ("sessionId", .string(session)), ("callType", options["--call-type"].map { .string($0) }),
                ("active", flags.contains("--inactive") ? .bool(false) : nil),
                ("text", options["--text"].map { .string($0) }),
            ])
            return .success(("POST", "/v1/api/rooms/\(segment(arguments[0]))/meeting", body))
        case ("event", 1):
            let body: JSONValue
            if let recording = options["--recording"] {
                guard recording == "on" || recording == "off" else { return .failure("--recording takes on or off") }
                body = object([("type", .string("media")), ("recording", .bool(recording == "on"))])
            } else if let mode = options["--audio-mode"] {
                body = object([
                    ("type", .string("media")), ("audioMode", .string(mode)),
                    ("uid", options["--uid"].map { .string($0) }),
                ])
            } else if let speaker = options["--speaker"] {
                body = object([("type", .string("speaker")), ("uid", .string(speaker))])
            } else if flags.contains("--no-speaker") {
                body = object([("type", .string("speaker")), ("uid", .null)])
            } else {
                return .failure("event needs --recording, --audio-mode, --speaker or --no-speaker")
            }
            return .success(("POST", "/v1/api/rooms/\(segment(arguments[0]))/events", body))
        case ("action", 2):
            var duration: JSONValue?
            if let text = options["--duration-ms"] {
                guard let milliseconds = Int64(text), milliseconds > 0 else {
                    return .failure("--duration-ms takes a positive number of milliseconds")
                }
                duration = .int(milliseconds)
            }
            var limit: JSONValue?
            if let text = options["--limit"] {
                guard arguments[1] == "floor", let number = Int64(text), number > 0 else {
                    return .failure("--limit with an action goes with floor and takes a positive number")
                }
                limit = .int(number)
            }
            if flags.contains("--queue"), arguments[1] != "floor" {
                return .failure("--queue goes with the floor action")
            }
            let body = object([
                ("action", .string(arguments[1])), ("target", options["--target"].map { .string($0) }),
                ("reason", options["--reason"].map { .string($0) }),
                ("hard", flags.contains("--hard") ? .bool(true) : nil), ("durationMs", duration),
                ("limit", limit), ("queue", flags.contains("--queue") ? .bool(true) : nil),
            ])
            return .success(("POST", "/v1/api/rooms/\(segment(arguments[0]))/actions", body))
        case ("lock", 1), ("unlock", 1):
            let body = object([("action", .string(command)), ("reason", options["--reason"].map { .string($0) })])
            return .success(("POST", "/v1/api/rooms/\(segment(arguments[0]))/actions", body))
        case ("attributes", 2...), ("metadata", 1...):
            let isAttributes = command == "attributes"
            let changes = Array(arguments.dropFirst(isAttributes ? 2 : 1))
            guard !changes.isEmpty else { return .failure("\(command) needs at least one KEY=VALUE or KEY") }
            let members = changes.map { change -> (String, JSONValue) in
                let pair = change.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (String(pair[0]), pair.count == 2 ? .string(String(pair[1])) : .null)
            }
            guard Set(members.map(\.0)).count == members.count else { return .failure("a key appears twice") }
            let values = JSONValue.object(JSONObject(uniqueKeysWithValues: members))
            let body =
                isAttributes
                ? object([
                    ("type", .string("attributes")), ("uid", .string(arguments[1])), ("attributes", values),
                    ("ifSeq", ifSeq),
                ])
                : object([("type", .string("metadata")), ("metadata", values), ("ifSeq", ifSeq)])
            return .success(("POST", "/v1/api/rooms/\(segment(arguments[0]))/events", body))
        case ("permissions", 3...):
            var values: [(String, JSONValue)] = []
            for setting in arguments.dropFirst(2) {
                let pair = setting.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, ["unmute", "share", "meetings", "hidden"].contains(String(pair[0])),
                    pair[1] == "true" || pair[1] == "false", !values.contains(where: { $0.0 == pair[0] })
                else { return .failure("permissions takes unmute=, share=, meetings=, hidden= with true or false") }
                values.append((String(pair[0]), .bool(pair[1] == "true")))
            }
            let body = object([
                ("type", .string("permissions")), ("uid", .string(arguments[1])),
                ("permissions", .object(JSONObject(uniqueKeysWithValues: values))), ("ifSeq", ifSeq),
            ])
            return .success(("POST", "/v1/api/rooms/\(segment(arguments[0]))/events", body))
        case ("attendance", 1), ("waiting", 1):
            var parameters: [String] = []
            for name in ["after", "limit"] {
                guard let text = options["--\(name)"] else { continue }
                guard let number = Int(text), number >= 0 else { return .failure("--\(name) takes an integer ≥ 0") }
                parameters.append("\(name)=\(number)")
            }
            let query = parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&")
            return .success(("GET", "/v1/api/rooms/\(segment(arguments[0]))/\(command)\(query)", nil))
        case ("disconnect", 1):
            let body = object([("reason", options["--reason"].map { .string($0) })])
            return .success(("POST", "/v1/api/users/\(segment(arguments[0]))/disconnect", body))
        default:
            return .failure("unknown command or wrong arguments: \(positional.joined(separator: " "))")
        }
    }
}

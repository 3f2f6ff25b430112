import Foundation
import JSONCoding
import RollcallBench

/// `rollcall bench`: load generation against a Rollcall server on this machine.
enum BenchCommand {
    static let help = """
        USAGE: rollcall bench SCENARIO URL [OPTIONS]
               rollcall bench roster-wire [--participants N] [--storm N] [--storm-ms MS] [--window MS] [--json]
               rollcall bench rooms-threads [--threads N] [--rooms N] [--subscribers N] [--messages N]
                                            [--store PATH] [--batch N] [--json]

        roster-wire needs no server: it measures in-process, with a manual clock, the bytes one mute costs a
        subscriber of an N-participant room (patch against full snapshot) and the frames and bytes a subscriber
        receives during a storm of joins (coalesced with --window, and without coalescing).

        rooms-threads needs no server either: it sets up --rooms rooms (default 200), each with a publisher and
        --subscribers observers (default 2), on --threads rooms threads (default 1), then times --messages meeting
        messages per room (default 200) read and handled by the rooms threads alone, without sockets or a client;
        it reports published messages per second and each rooms thread's CPU time. With --store PATH every
        rooms thread commits its rooms to that store file (created when missing) through a connection of its own,
        once per --batch messages (default 64), as the gateway commits once per iteration of a rooms thread.

        Generates load against a server on this machine and reports what it measured. Only loopback targets
        (127.0.0.0/8, ::1, localhost) are accepted. Every run ends by itself: setup waits at most 10 s, the load
        lasts --duration seconds (at most 600), draining at most --timeout, closing at most 2 s.

        SCENARIOS:
          echo      each connection keeps --in-flight binary messages of --size bytes in flight to an echo
                    endpoint (URL e.g. ws://127.0.0.1:9001/echo); reports messages/s, round-trip latency, and
                    messages lost (a skipped sequence number, or no reply within --timeout) or mismatched
                    (duplicated, out of order or corrupted)
          fanout    through the rooms protocol (URL e.g. ws://127.0.0.1:8080/v1/ws): per room, --subscribers
                    observers join with "as":"observer" and one publisher sends meeting messages at --rate per
                    second; reports expected vs received deliveries, delivery latency, deliveries/s over the span
                    from the first delivery to the last (drain included, so a server that falls behind does not
                    look fast), and how many deliveries arrived after the load ended, with their latency
          pubsub    raw publish and subscribe against any WebSocket server: --subscribers connections to URL,
                    each sending --subscribe-message (if given) once upgraded; after --settle seconds one
                    publisher (at --publish-url, default URL) sends --publish-template as text at --rate per
                    second, its {payload} replaced by "rollcall-bench SEQUENCE SENDTIME" padded to --size
                    bytes. Subscribers find the payload anywhere in what they receive (a server may wrap it)
                    and ignore messages without it; reported like fanout
          roster    through the rooms protocol: --participants join one room and change their state (mute,
                    hand, video, presenting) at --rate changes per second in total, while --subscribers
                    observers mirror the roster from its snapshot and patches (checksums verified on every
                    step); reports change-to-patch latency (each change also sets the participant's mid to
                    its send time), patch deliveries/s, and whether every observer converged to the same
                    roster showing every participant's last change (exit status 1 when not)
          idle      opens --connections upgraded connections and keeps them idle for --duration; with
                    --server-pid, reports the server's resident memory per connection
          connect   --connections parallel loops of connect, upgrade, close; reports handshakes/s and the
                    connect-to-101 latency (wss:// URLs run TLS without certificate verification)
          soak      hours of churn through the rooms protocol (URL e.g. ws://127.0.0.1:8080/v1/ws): --rate
                    actions per second over --connections client slots in --rooms rooms (connect and join or
                    watch, state and speaker changes, leave and close, clean closes, dropped sockets that
                    reconnect); every --interval seconds a line with the server's VmRSS and open descriptors
                    (--server-pid, required), and the soak rooms with someone in the call and their roster
                    entries (a bot's rooms query); --json ends with the series and each one's slope per hour, over the
                    whole run and over its second half (after warm-up).
                    --duration up to 21600 (6 h)

        OPTIONS:
          --connections N          connections (echo, idle) or parallel handshakes (connect) (default 10)
          --duration SECONDS       length of the load, at most 600 (default 5)
          --size BYTES             echo message size, at least 16; pubsub payload size, at least 46
                                   (default 64)
          --in-flight N            echo messages in flight per connection (default 1)
          --rate N                 meeting messages per second per room (fanout), messages per second
                                   (pubsub), or state changes per second in total (roster) (default 10)
          --participants N         participants changing their state (roster, default 50)
          --rooms N                rooms (fanout, default 1)
          --subscribers N          observers per room (fanout, roster), subscribers (pubsub) (default 10)
          --key KID:SECRET         token signing key (fanout, roster, default the development key)
          --threads N              client event loop threads (default 1)
          --timeout SECONDS        wait for an echo before counting it lost, and for the drain (default 2)
          --server-pid PID         read VmRSS of PID before and after opening connections (idle)
          --source-addresses LIST  local addresses to connect from, e.g. 127.0.0.1-127.0.0.8, to go past one
                                   address's ephemeral port range
          --observers-at URLS      fanout: observers connect to these servers in turn (nodes of a cluster,
                                   comma-separated); publishers use URL
          --compression            offer permessage-deflate (RFC 7692) on every connection (not soak). Where
                                   the server agrees, compressed server messages are inflated, and text and
                                   binary messages of 64 bytes or more go out compressed (zlib level 1,
                                   15-bit window: about 166 KiB of zlib state per connection that sends
                                   one, 39 KiB per connection that receives one); where it declines, the
                                   connection runs uncompressed. The summary adds the connections that
                                   agreed, the compressed messages received (bytes on the wire against
                                   bytes inflated) and sent (bytes before compression against on the wire)
          --publish-url URL        pubsub: where the publisher connects (default URL)
          --subscribe-message TEXT pubsub: the text message each subscriber sends once upgraded
          --publish-template TEXT  pubsub: the publisher's text message, with one {payload} (default
                                   {payload}); e.g. a Rollcall meeting message:
                                   {"type":"meeting","group":"G","sessionId":"s","text":"{payload}"}
          --settle SECONDS         pubsub: pause between the upgrades and the first publish (default 1)
          --interval SECONDS       soak: seconds between samples (default 10)
          --seed N                 soak: seed of the action sequence (default 1)
          --json                   print the summary as one JSON object on stdout
          --quiet                  no progress lines on stderr
          -h, --help               show this help

        Progress (connections open, rate, errors) goes to stderr every second unless --quiet. The summary gives
        the connections, the scenario's counts and rate, latency percentiles (p50, p99, p99.9, max), the bytes
        written to and read from the sockets (TLS: ciphertext) and any errors; --json gives the same as one object.
        """

    static func run(_ arguments: [String]) -> Int32 {
        if arguments.contains("-h") || arguments.contains("--help") {
            print(Self.help)
            return 0
        }
        var positional: [String] = []
        var flags: [(String, String?)] = []
        var json = false
        var quiet = false
        var index = 0
        let valueless: Set<String> = ["--json", "--quiet", "--compression"]
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("--") {
                if argument == "--json" {
                    json = true
                } else if argument == "--quiet" {
                    quiet = true
                } else if valueless.contains(argument) {
                    flags.append((argument, nil))
                } else {
                    index += 1
                    guard index < arguments.count else { return CommandRunner.fail("\(argument) needs a value") }
                    flags.append((argument, arguments[index]))
                }
            } else {
                positional.append(argument)
            }
            index += 1
        }
        if positional.first == "roster-wire" {
            return Self.runRosterWire(flags: flags, json: json)
        }
        if positional.first == "rooms-threads" {
            return Self.runRoomThreads(flags: flags, json: json)
        }
        if positional.count == 2, positional[0] == "soak" {
            return Self.runSoak(url: positional[1], flags: flags, json: json, quiet: quiet)
        }
        guard positional.count == 2, let scenario = BenchOptions.Scenario(rawValue: positional[0]) else {
            return CommandRunner.fail(
                "expected a scenario (echo, fanout, pubsub, roster, idle, connect, soak) and a URL\n\n\(Self.help)"
            )
        }
        do {
            var options = BenchOptions(scenario: scenario, target: try BenchTarget(url: positional[1]))
            for (flag, value) in flags {
                let text = value ?? ""
                func integer() throws(BenchError) -> Int { try Self.integer(flag, text) }
                func seconds() throws(BenchError) -> Double { try Self.seconds(flag, text) }
                switch flag {
                case "--connections": options.connections = try integer()
                case "--duration": options.duration = try seconds()
                case "--size": options.size = try integer()
                case "--in-flight": options.inFlight = try integer()
                case "--rate": options.rate = try integer()
                case "--rooms": options.rooms = try integer()
                case "--subscribers": options.subscribers = try integer()
                case "--participants": options.participants = try integer()
                case "--key": options.key = text
                case "--threads": options.threads = try integer()
                case "--timeout": options.replyTimeout = try seconds()
                case "--server-pid":
                    guard let pid = Int32(text), pid > 0 else { throw BenchError("--server-pid needs a process id") }
                    options.serverPID = pid
                case "--source-addresses": options.sourceAddresses = try BenchOptions.parseSourceAddresses(text)
                case "--observers-at":
                    options.observerTargets = try text.split(separator: ",").map { url throws(BenchError) in
                        try BenchTarget(url: String(url))
                    }
                case "--compression": options.compression = true
                case "--publish-url": options.publishTarget = try BenchTarget(url: text)
                case "--subscribe-message": options.subscribeMessage = text
                case "--publish-template": options.publishTemplate = text
                case "--settle": options.settle = try seconds()
                default: throw BenchError("unknown option '\(flag)'")
                }
            }
            let progress: ((String) -> Void)? =
                quiet ? nil : { line in FileHandle.standardError.write(Data("\(line)\n".utf8)) }
            let report = try BenchRunner.run(options, progress: progress)
            if json {
                print(JSONWriter.string(report.json))
            } else {
                print(report.text)
            }
            // Nothing connected at all: the run measured nothing, which a script should notice.
            if let convergence = report.convergence, !convergence.isConverged { return 1 }
            return report.counters.opened == 0 ? 1 : 0
        } catch let error as BenchError {
            return CommandRunner.fail(error.description)
        } catch {
            return CommandRunner.fail("\(error)")
        }
    }

    static func runSoak(url: String, flags: [(String, String?)], json: Bool, quiet: Bool) -> Int32 {
        do {
            var options = SoakOptions(target: try BenchTarget(url: url))
            for (flag, value) in flags {
                let text = value ?? ""
                func integer() throws(BenchError) -> Int { try Self.integer(flag, text) }
                func seconds() throws(BenchError) -> Double { try Self.seconds(flag, text) }
                switch flag {
                case "--duration": options.duration = try seconds()
                case "--interval": options.interval = try seconds()
                case "--connections": options.connections = try integer()
                case "--rooms": options.rooms = try integer()
                case "--rate": options.rate = try integer()
                case "--key": options.key = text
                case "--timeout": options.timeout = try seconds()
                case "--seed":
                    guard let seed = UInt64(text) else { throw BenchError("--seed needs a whole number") }
                    options.seed = seed
                case "--server-pid":
                    guard let pid = Int32(text), pid > 0 else { throw BenchError("--server-pid needs a process id") }
                    options.serverPID = pid
                default: throw BenchError("\(flag) does not apply to soak")
                }
            }
            let progress: ((String) -> Void)? =
                quiet ? nil : { line in FileHandle.standardError.write(Data("\(line)\n".utf8)) }
            let report = try SoakRunner.run(options, progress: progress)
            print(json ? JSONWriter.string(report.json) : report.text)
            return report.counts.contains { $0.0 == "connects" && $0.1 > 0 } ? 0 : 1
        } catch {
            return CommandRunner.fail("\(error)")
        }
    }

    /// `rollcall bench roster-wire`: the wire cost of roster traffic, measured in-process (no server needed).
    static func runRosterWire(flags: [(String, String?)], json: Bool) -> Int32 {
        var participants = 1000
        var storm = 1000
        var stormMilliseconds: Int64 = 1000
        var window: Int64 = 50
        for (flag, value) in flags {
            guard let number = Int(value ?? ""), number >= 0 else {
                return CommandRunner.fail("\(flag) needs a whole number")
            }
            switch flag {
            case "--participants": participants = max(1, min(number, 100_000))
            case "--storm": storm = max(1, min(number, 100_000))
            case "--storm-ms": stormMilliseconds = Int64(max(1, min(number, 600_000)))
            case "--window": window = Int64(min(number, 10_000))
            default: return CommandRunner.fail("unknown option '\(flag)' for roster-wire")
            }
        }
        do {
            let report = try RosterWireBenchmark.run(
                participants: participants, stormJoins: storm, stormMilliseconds: stormMilliseconds,
                windowMilliseconds: window
            )
            print(json ? report.json : report.text)
            return 0
        } catch {
            return CommandRunner.fail("roster-wire: \(error)")
        }
    }

    /// `rollcall bench rooms-threads`: meeting messages per second through the rooms threads, in-process.
    static func runRoomThreads(flags: [(String, String?)], json: Bool) -> Int32 {
        var threads = 1
        var rooms = 200
        var subscribers = 2
        var messages = 200
        var storePath: String?
        var batch = 64
        for (flag, value) in flags {
            if flag == "--store" {
                guard let value, !value.isEmpty else { return CommandRunner.fail("--store needs a file") }
                storePath = value
                continue
            }
            guard let number = Int(value ?? ""), number >= 1 else {
                return CommandRunner.fail("\(flag) needs a whole number of at least 1")
            }
            switch flag {
            case "--threads": threads = min(number, 64)
            case "--rooms": rooms = min(number, 100_000)
            case "--subscribers": subscribers = min(number, 10_000)
            case "--messages": messages = min(number, 100_000)
            case "--batch": batch = min(number, 100_000)
            default: return CommandRunner.fail("unknown option '\(flag)' for rooms-threads")
            }
        }
        do {
            let report = try RoomThreadsBenchmark.run(
                threads: threads, rooms: rooms, subscribers: subscribers, messages: messages, storePath: storePath,
                batch: batch)
            print(json ? report.json : report.text)
            return 0
        } catch {
            return CommandRunner.fail("rooms-threads: \(error)")
        }
    }

    /// A flag's whole-number value (underscores allowed as separators).
    static func integer(_ flag: String, _ text: String) throws(BenchError) -> Int {
        guard let number = Int(text.replacingOccurrences(of: "_", with: "")) else {
            throw BenchError("\(flag) needs an integer, got '\(text)'")
        }
        return number
    }

    /// A flag's value in seconds.
    static func seconds(_ flag: String, _ text: String) throws(BenchError) -> Double {
        guard let number = Double(text), number.isFinite else {
            throw BenchError("\(flag) needs a number of seconds, got '\(text)'")
        }
        return number
    }
}

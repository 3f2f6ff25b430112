import Foundation
import WebSocketServer

/// The `rollcall` command line: parses the subcommand and its flags and runs it.
public enum CommandRunner {
    static let usage = """
        rollcall: a real-time WebSocket gateway for live meeting rosters

        USAGE: rollcall SUBCOMMAND [OPTIONS]

        SUBCOMMANDS:
          serve          run the gateway
          check-config   validate the configuration and print the effective values with their origin
          token          mint a development token (JWT) for a user, signed with the configured key
          bench          generate load against a server on this machine (echo, fanout, idle, connect)
          ctl            drive a running gateway through its server API (rooms, actions, meeting messages, events)

        OPTIONS:
          -h, --help     show this help

        Run 'rollcall SUBCOMMAND --help' for the options of a subcommand.
        """

    static let configurationOptions = """
        OPTIONS:
          --config PATH        configuration file (default: \(ConfigurationLoader.defaultPath) when present)
          --set KEY=VALUE      override one key (repeatable); beats the file and the environment
                               (api.keys for the server API, log.level for the log, see KEYS)
          --listen ADDRESSES   shorthand for --set server.listen=ADDRESSES
          --echo               shorthand for --set server.echo=true
          -h, --help           show this help

        Every key can also be set with an environment variable: server.listen -> ROLLCALL_SERVER_LISTEN.
        Precedence: defaults < file < environment < flags.

        KEYS:
        """

    /// Runs the command line and returns the process exit code.
    ///
    /// - Parameter arguments: the arguments without the program name.
    public static func run(_ arguments: [String]) -> Int32 {
        guard let subcommand = arguments.first else {
            print(Self.usage)
            return 64
        }
        let rest = Array(arguments.dropFirst())
        switch subcommand {
        case "serve":
            return ServeCommand.run(rest)
        case "check-config":
            return CheckConfigCommand.run(rest)
        case "token":
            return TokenCommand.run(rest)
        case "bench":
            return BenchCommand.run(rest)
        case "ctl":
            return CtlCommand.run(rest)
        case "-h", "--help", "help":
            print(Self.usage)
            return 0
        default:
            FileHandle.standardError.write(Data("rollcall: unknown subcommand '\(subcommand)'\n\n\(Self.usage)\n".utf8))
            return 64
        }
    }

    /// Options shared by the commands that read the configuration.
    struct ConfigurationOptions {
        var path: String?
        var overrides: [(String, String)] = []
        var wantsHelp = false

        init(_ arguments: [String]) throws(ConfigError) {
            var index = 0
            func value(_ flag: String) throws(ConfigError) -> String {
                index += 1
                guard index < arguments.count else { throw ConfigError("\(flag) needs a value") }
                return arguments[index]
            }
            while index < arguments.count {
                let argument = arguments[index]
                switch argument {
                case "--config": self.path = try value(argument)
                case "--set":
                    let pair = try value(argument)
                    guard let equals = pair.firstIndex(of: "=") else {
                        throw ConfigError("--set expects KEY=VALUE, got '\(pair)'")
                    }
                    self.overrides.append((String(pair[..<equals]), String(pair[pair.index(after: equals)...])))
                case "--listen": self.overrides.append(("server.listen", try value(argument)))
                case "--echo": self.overrides.append(("server.echo", "true"))
                case "-h", "--help": self.wantsHelp = true
                default: throw ConfigError("unknown option '\(argument)'")
                }
                index += 1
            }
        }

        func load() throws(ConfigError) -> (RollcallConfiguration, ConfigurationLoader) {
            var loader = ConfigurationLoader()
            let configuration = try loader.load(
                path: self.path,
                environment: ProcessInfo.processInfo.environment,
                overrides: self.overrides
            )
            return (configuration, loader)
        }
    }

    static func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("rollcall: \(message)\n".utf8))
        return 78
    }
}

enum CheckConfigCommand {
    static func run(_ arguments: [String]) -> Int32 {
        do {
            let options = try CommandRunner.ConfigurationOptions(arguments)
            if options.wantsHelp {
                print("USAGE: rollcall check-config [OPTIONS]\n\n" + CommandRunner.configurationOptions)
                print(ConfigurationLoader.reference)
                return 0
            }
            let (configuration, loader) = try options.load()
            try configuration.refuseDevelopmentKeyBeyondLoopback()
            print(loader.describe(configuration))
            for warning in loader.warnings { print("warning: \(warning)") }
            print("configuration ok")
            return 0
        } catch {
            return CommandRunner.fail(error.description)
        }
    }
}

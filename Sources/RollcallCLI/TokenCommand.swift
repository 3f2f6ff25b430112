import TokenAuth

#if canImport(Glibc)
import Glibc
#endif

/// `rollcall token`: mints a development token signed with the first configured key.
enum TokenCommand {
    static let help = """
        USAGE: rollcall token --uid UID [OPTIONS]

        Prints an HS256 JWT for UID, signed with the first key of auth.keys, for development and tests. It reads the
        same configuration as serve (config/rollcall.conf, ROLLCALL_* variables, --config, --set): its iss and aud
        claims are auth.issuer and auth.audience from there when they are set, so the gateway that reads that
        configuration accepts the token; set them with --set auth.issuer=... --set auth.audience=... to mint for
        another gateway.

        OPTIONS:
          --uid UID            the user id (sub); required
          --name NAME          display name
          --avatar URL         avatar URL
          --room ROOM          a room the token gives access to (repeatable), with --role
          --role ROLE          role in the --room rooms: admin, moderator, participant, viewer or bot (default participant)
          --group GROUP        a group the user is a member of (repeatable)
          --caps LIST          bot capabilities, comma-separated (mute, remove, ban, promote, pin, end, lock, floor,
                               admit, record, speaker, attributes, metadata, permissions, attendance)
          --admission RULE     at the --room rooms' waiting room: wait (even when it is off) or bypass (even when
                               it is on)
          --attr KEY=VALUE     a participant attribute the token vouches for (repeatable)
          --ttl SECONDS        lifetime (default 3600)
          --config PATH        configuration file the signing key comes from (as for serve)
          --set KEY=VALUE      override one key, e.g. --set auth.keys=kid:secret (repeatable)
          -h, --help           show this help
        """

    static func run(_ arguments: [String]) -> Int32 {
        var uid: String?
        var name: String?
        var avatar: String?
        var rooms: [String] = []
        var roleText = "participant"
        var groups: [String] = []
        var caps: [String] = []
        var attributes: [String: String] = [:]
        var ttl: Int64 = 3600
        var admission: TokenAdmission?
        var configurationArguments: [String] = []
        var index = 0
        func value() -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        while index < arguments.count {
            let flag = arguments[index]
            switch flag {
            case "--uid": uid = value()
            case "--name": name = value()
            case "--avatar": avatar = value()
            case "--room": if let room = value() { rooms.append(room) }
            case "--role": roleText = value() ?? ""
            case "--group": if let group = value() { groups.append(group) }
            case "--caps": caps = (value() ?? "").split(separator: ",").map(String.init)
            case "--attr":
                let pair = (value() ?? "").split(separator: "=", maxSplits: 1)
                guard pair.count == 2, !pair[0].isEmpty else {
                    return CommandRunner.fail("--attr needs KEY=VALUE")
                }
                attributes[String(pair[0])] = String(pair[1])
            case "--admission":
                guard let rule = TokenAdmission(rawValue: value() ?? "") else {
                    return CommandRunner.fail("--admission must be wait or bypass")
                }
                admission = rule
            case "--ttl":
                guard let text = value(), let seconds = Int64(text), seconds > 0 else {
                    return CommandRunner.fail("--ttl needs a positive number of seconds")
                }
                ttl = seconds
            case "--config", "--set":
                configurationArguments.append(flag)
                if let next = value() { configurationArguments.append(next) }
            case "-h", "--help":
                print(Self.help)
                return 0
            default:
                return CommandRunner.fail("unknown option '\(flag)'\n\n\(Self.help)")
            }
            index += 1
        }
        guard let uid, !uid.isEmpty else { return CommandRunner.fail("--uid is required\n\n\(Self.help)") }
        guard let role = TokenRole(rawValue: roleText) else {
            return CommandRunner.fail("--role must be admin, moderator, participant, viewer or bot")
        }
        do {
            let options = try CommandRunner.ConfigurationOptions(configurationArguments)
            let (configuration, _) = try options.load()
            guard let first = configuration.auth.keys.first else { throw ConfigError("auth.keys: no key") }
            let key = try TokenKeys.key(from: first)
            let now = Int64(time(nil))
            let claims = TokenClaims(
                subject: uid,
                expiresAt: now + ttl,
                name: name,
                avatar: avatar,
                rooms: Dictionary(uniqueKeysWithValues: rooms.map { ($0, role) }),
                groups: groups,
                capabilities: caps,
                attributes: attributes,
                admission: admission.map { rule in Dictionary(uniqueKeysWithValues: rooms.map { ($0, rule) }) } ?? [:],
                issuedAt: now,
                issuer: configuration.auth.issuer,
                audience: configuration.auth.audience.map { [$0] } ?? []
            )
            print(try TokenSigner(key: key).sign(claims))
            return 0
        } catch let error as ConfigError {
            return CommandRunner.fail(error.description)
        } catch {
            return CommandRunner.fail("cannot sign: \(error)")
        }
    }
}

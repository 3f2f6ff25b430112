/// The key a command is routed by in a Redis Cluster: the first key it names, or nil for a command that names none
/// (it may go to any node).
///
/// `EVAL`, `EVALSHA` and `FCALL` (and their `_RO` forms) name their keys after the key count; commands that name no
/// key (`PING`, `SCRIPT`, `CLUSTER`, `PUBLISH`, `SCAN`, `KEYS`, ...) get nil: `SCAN` and `KEYS` see only the keys of
/// the node they reach, so run them on each primary (`RedisClusterClient.sendToEachPrimary`). Every other command is
/// taken to name its key first, which holds for the commands of strings, hashes, sets, sorted sets, lists and streams
/// (except `XREAD`). The keys of one command must share a slot, or the cluster refuses it (`CROSSSLOT`).
enum RedisCommandKey {
    /// The commands that name no key.
    private static let keyless: Set<String> = [
        "ASKING", "AUTH", "CLIENT", "CLUSTER", "COMMAND", "CONFIG", "DBSIZE", "DEBUG", "ECHO", "FLUSHALL", "FLUSHDB",
        "FUNCTION", "HELLO", "INFO", "KEYS", "PING", "PUBLISH", "PUBSUB", "RANDOMKEY", "READONLY", "READWRITE", "ROLE",
        "SCAN", "SCRIPT", "SELECT", "SUBSCRIBE", "TIME", "UNSUBSCRIBE", "WAIT",
    ]

    /// The routing key of `arguments`, or nil when the command names none.
    ///
    /// - Parameter arguments: the command name and its arguments.
    static func routingKey(_ arguments: [[UInt8]]) -> [UInt8]? {
        guard let first = arguments.first else { return nil }
        let name = String(decoding: first, as: UTF8.self).uppercased()
        switch name {
        case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO":
            guard arguments.count > 3, let count = Int(String(decoding: arguments[2], as: UTF8.self)), count > 0
            else { return nil }
            return arguments[3]
        default:
            guard !Self.keyless.contains(name), arguments.count > 1 else { return nil }
            return arguments[1]
        }
    }
}

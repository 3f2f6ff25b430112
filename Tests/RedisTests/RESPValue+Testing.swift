import Redis

extension RESPValue {
    /// The text of a bulk or simple string reply, nil for anything else.
    var text: String? {
        switch self {
        case .bulkString(let bytes?): return String(decoding: bytes, as: UTF8.self)
        case .simpleString(let text): return text
        default: return nil
        }
    }
}

extension Result where Success == RESPValue, Failure == RedisError {
    /// The reply's text, nil for a failure or a reply that is not a string.
    var text: String? { (try? self.get())?.text }

    /// The failure, nil for a reply.
    var error: RedisError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

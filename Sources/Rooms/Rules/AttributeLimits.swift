/// The bounds of the key/value strings apps attach to participants (attributes) and rooms (metadata): how many keys,
/// how long a key and a value, and how many bytes in all (keys and values). A change that would pass them is refused
/// with `ERR_TOO_LARGE` and changes nothing.
public struct AttributeLimits: Hashable, Sendable {
    /// Most keys.
    public var maximumKeys: Int
    /// Longest key, in bytes (keys are 1 or more of `A-Z a-z 0-9 . _ -`).
    public var maximumKeyBytes: Int
    /// Longest value, in UTF-8 bytes.
    public var maximumValueBytes: Int
    /// Most bytes of keys and values together.
    public var maximumTotalBytes: Int

    /// A participant's attributes: 16 keys, 64-byte keys, 256-byte values, 2 KiB in all.
    public static let participant = AttributeLimits(
        maximumKeys: 16, maximumKeyBytes: 64, maximumValueBytes: 256, maximumTotalBytes: 2048)
    /// A room's metadata: 32 keys, 64-byte keys, 1 KiB values, 8 KiB in all.
    public static let room = AttributeLimits(
        maximumKeys: 32, maximumKeyBytes: 64, maximumValueBytes: 1024, maximumTotalBytes: 8192)

    /// Whether `key` is a valid key: 1 to `maximumKeyBytes` of `A-Z a-z 0-9 . _ -`.
    func isValidKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= self.maximumKeyBytes
            && key.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                    return true
                default:
                    return false
                }
            }
    }

    /// `values` checked against the limits, keys included.
    ///
    /// - Parameters:
    ///   - values: the keys and values.
    ///   - what: what they are, for the error.
    /// - Throws: `ERR_TOO_LARGE` naming the limit passed.
    @discardableResult
    func checked(_ values: [String: String], what: String) throws(GatewayError) -> [String: String] {
        for (key, value) in values {
            guard self.isValidKey(key) else {
                throw .tooLarge(
                    "\(what): '\(key.prefix(80))' is not a key of 1 to \(self.maximumKeyBytes) of A-Z a-z 0-9 . _ -")
            }
            guard value.utf8.count <= self.maximumValueBytes else {
                throw .tooLarge("\(what): '\(key)' is longer than \(self.maximumValueBytes) bytes")
            }
        }
        return try self.applying([:], to: values, what: what)
    }

    /// `current` with `changes` applied (a nil value removes the key), checked against the limits.
    ///
    /// - Parameters:
    ///   - changes: the keys to set, and those to remove (nil).
    ///   - current: the keys as they are.
    ///   - what: what they are, for the error (`attributes`, `metadata`).
    /// - Throws: `ERR_TOO_LARGE` naming the limit passed.
    @discardableResult
    func applying(
        _ changes: [String: String?], to current: [String: String], what: String
    ) throws(GatewayError)
        -> [String: String]
    {
        var result = current
        for (key, value) in changes { result[key] = value }
        guard result.count <= self.maximumKeys else {
            throw .tooLarge("\(what) hold at most \(self.maximumKeys) keys")
        }
        let total = result.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        guard total <= self.maximumTotalBytes else {
            throw .tooLarge("\(what) hold at most \(self.maximumTotalBytes) bytes of keys and values")
        }
        return result
    }
}

extension GatewayError {
    /// A change would pass a documented size limit.
    static func tooLarge(_ message: String) -> GatewayError { GatewayError(.tooLarge, message) }
}

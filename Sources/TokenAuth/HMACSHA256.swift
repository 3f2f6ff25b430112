internal import CWebSocket

/// HMAC-SHA256 (RFC 2104, FIPS 180-4) through OpenSSL's one-shot `HMAC`: the tokens' signatures, and whatever
/// else the gateway signs (webhook deliveries).
public enum HMACSHA256 {
    /// The length of a tag in bytes.
    public static let tagLength = 32

    /// Computes the HMAC-SHA256 tag of `message` under `key`.
    ///
    /// - Parameters:
    ///   - key: The secret; must not be empty.
    ///   - message: The authenticated bytes.
    /// - Returns: The 32-byte tag, or nil if OpenSSL failed (which it only does when it cannot allocate memory).
    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8]? {
        guard !key.isEmpty, key.count <= Int(Int32.max) else {
            return nil
        }
        var tag = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var tagLength: UInt32 = 0
        let result = key.withUnsafeBytes { key in
            message.withUnsafeBufferPointer { message in
                tag.withUnsafeMutableBufferPointer { tag in
                    HMAC(
                        EVP_sha256(), key.baseAddress, Int32(key.count), message.baseAddress, message.count,
                        tag.baseAddress, &tagLength
                    )
                }
            }
        }
        guard result != nil, Int(tagLength) == Self.tagLength else {
            return nil
        }
        return Array(tag.prefix(Self.tagLength))
    }
}

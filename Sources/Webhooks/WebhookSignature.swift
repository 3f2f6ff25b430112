import TokenAuth

/// The `Rollcall-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>." followed by the body>`. A
/// receiver recomputes the HMAC with the endpoint's secret, compares in constant time, and rejects a timestamp
/// further than its tolerance (five minutes is usual) from its clock, so a captured delivery cannot be replayed later.
public enum WebhookSignature {
    /// The header's name.
    public static let headerName = "Rollcall-Signature"

    /// The header's value for a body sent at `timestamp`.
    ///
    /// - Parameters:
    ///   - body: the request body.
    ///   - secret: the endpoint's secret.
    ///   - timestamp: seconds since the epoch.
    public static func header(body: [UInt8], secret: [UInt8], timestamp: Int64) -> String {
        "t=\(timestamp),v1=" + Self.hex(Self.code(body: body, secret: secret, timestamp: timestamp))
    }

    /// Checks a header the way a receiver should.
    ///
    /// - Parameters:
    ///   - header: the `Rollcall-Signature` value.
    ///   - body: the request body as received.
    ///   - secret: the endpoint's secret.
    ///   - now: the receiver's time, in seconds since the epoch.
    ///   - tolerance: the largest accepted difference between `t` and `now`, in seconds.
    public static func verify(
        header: String, body: [UInt8], secret: [UInt8], now: Int64, tolerance: Int64 = 300
    ) -> Bool {
        var timestamp: Int64?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int64(pair[1]) }
            if pair[0] == "v1" { signatures.append(String(pair[1])) }
        }
        guard let timestamp, abs(now - timestamp) <= tolerance else { return false }
        let expected = Array(Self.hex(Self.code(body: body, secret: secret, timestamp: timestamp)).utf8)
        return signatures.contains { candidate in
            let bytes = Array(candidate.utf8)
            guard bytes.count == expected.count else { return false }
            var difference: UInt8 = 0
            for index in bytes.indices { difference |= bytes[index] ^ expected[index] }
            return difference == 0
        }
    }

    private static func code(body: [UInt8], secret: [UInt8], timestamp: Int64) -> [UInt8] {
        HMACSHA256.authenticationCode(key: secret, message: Array("\(timestamp).".utf8) + body) ?? []
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

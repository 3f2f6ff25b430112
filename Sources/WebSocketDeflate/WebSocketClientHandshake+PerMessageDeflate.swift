import HTTPCore
import WebSocketCore

extension WebSocketClientHandshake {
    /// Checks the server's answer to the request, and its `Sec-WebSocket-Extensions` answer against the
    /// permessage-deflate offer (RFC 7692 §7.1, through `PerMessageDeflateClientParameters.validate`).
    ///
    /// - Parameters:
    ///   - head: the response head.
    ///   - offeredCompression: whether the request carried `PerMessageDeflateClientParameters.offerHeaderValue`.
    /// - Returns: the upgrade, and what the server agreed to for compression (nil when it declined or none was
    ///   offered).
    /// - Throws: `WebSocketClientHandshakeError` naming the first problem.
    public func validate(
        _ head: HTTPResponseHead,
        offeredCompression: Bool
    ) throws(WebSocketClientHandshakeError) -> (
        upgrade: WebSocketClientUpgrade, compression: PerMessageDeflateClientParameters?
    ) {
        try Self.validate(
            head, expectedAccept: self.expectedAccept, subprotocols: self.subprotocols,
            offeredCompression: offeredCompression)
    }

    /// Checks a server's answer as `validate(_:offeredCompression:)` does, against the `Sec-WebSocket-Accept` value
    /// the request's key calls for.
    ///
    /// - Parameters:
    ///   - head: the response head.
    ///   - expectedAccept: `WebSocketHandshake.acceptValue(forKey:)` of the key sent.
    ///   - subprotocols: the subprotocols offered.
    ///   - offeredCompression: whether the request carried `PerMessageDeflateClientParameters.offerHeaderValue`.
    /// - Returns: the upgrade, and what the server agreed to for compression (nil when it declined or none was
    ///   offered).
    /// - Throws: `WebSocketClientHandshakeError` naming the first problem.
    public static func validate(
        _ head: HTTPResponseHead,
        expectedAccept: String,
        subprotocols: [String] = [],
        offeredCompression: Bool
    ) throws(WebSocketClientHandshakeError) -> (
        upgrade: WebSocketClientUpgrade, compression: PerMessageDeflateClientParameters?
    ) {
        let upgrade = try Self.validate(head, expectedAccept: expectedAccept, subprotocols: subprotocols)
        do throws(PerMessageDeflateResponseError) {
            let agreed = try PerMessageDeflateClientParameters.validate(
                responseHeaderValue: upgrade.extensions,
                offered: offeredCompression
            )
            return (upgrade, agreed)
        } catch {
            throw .extensionRefused(error.description)
        }
    }
}

/// What a `StreamConnection` tells its owner. Every call happens on the connection's loop; none follows `close()`.
public protocol StreamConnectionDelegate: AnyObject {
    /// The connection is ready: connected and, over TLS, the handshake done. Bytes written before now go out next.
    ///
    /// - Parameter connection: the connection.
    func streamConnectionDidOpen(_ connection: StreamConnection)

    /// Bytes arrived (over TLS, decrypted): the bytes left over from the previous call, followed by the new ones.
    /// The buffer is valid only during the call and may be changed in place (frames are unmasked or decoded there).
    ///
    /// - Parameters:
    ///   - connection: the connection.
    ///   - bytes: what is to be read.
    /// - Returns: how many bytes from the start were used. The rest is kept and handed over again, with the next
    ///   bytes behind it, up to the connection's `maximumBufferedBytes`.
    func streamConnection(_ connection: StreamConnection, didReceive bytes: UnsafeMutableRawBufferPointer) -> Int

    /// The connection is over: the peer closed it, or it failed. The socket is closed already.
    ///
    /// - Parameters:
    ///   - connection: the connection.
    ///   - ending: why.
    func streamConnection(_ connection: StreamConnection, didEndWith ending: StreamConnectionEnding)
}

import WebSocketCore

/// One client of a soak run: a `BenchConnection` on the run's loop that joins its room once the upgrade
/// completes, counts the text messages it gets and the protocol errors among them, and hands each text message to
/// `onText` (the run's bot reads its query answers there).
final class SoakClient: BenchConnectionDelegate {
    /// The WebSocket connection.
    let connection: BenchConnection
    /// Told when the upgrade completed.
    var onOpen: (() -> Void)?
    /// Told each text message; the bytes are valid only during the call.
    var onText: ((UnsafeRawBufferPointer) -> Void)?
    /// Told when the connection ended: whether the upgrade had completed before.
    var onClose: ((_ wasOpen: Bool) -> Void)?
    /// Text messages received, and those that were protocol errors.
    private(set) var messages = 0
    private(set) var errors = 0
    /// Whether the upgrade completed.
    private(set) var hasOpened = false
    /// What an error message from the server contains near its start.
    private static let errorMarker = Array("\"type\":\"error\"".utf8)

    /// - Parameter connection: the connection, not started yet; the client becomes its delegate.
    init(connection: BenchConnection) {
        self.connection = connection
        connection.delegate = self
    }

    /// Whether the connection is connecting or open: neither closed nor closing.
    var isLive: Bool { self.connection.state != .closed && self.connection.state != .closing }

    /// Whether the upgrade completed and the connection is open.
    var isOpen: Bool { self.connection.state == .open }

    /// The Close code the server sent first, if it did.
    var closeCode: UInt16? { self.connection.serverCloseCode }

    /// Sends one text message; does nothing unless open.
    func send(text: String) {
        var text = text
        text.withUTF8 { self.connection.send(.text, payload: UnsafeRawBufferPointer($0)) }
    }

    /// A clean close: our Close 1000, then the server's answer (or the close timeout).
    func closeCleanly() {
        self.connection.close()
    }

    /// Drops the connection without a close handshake, with a reset, like a phone losing its network.
    func drop() {
        self.connection.abort(nil, reset: true)
    }

    // MARK: BenchConnectionDelegate

    func connectionDidOpen(_ connection: BenchConnection) {
        self.hasOpened = true
        self.onOpen?()
    }

    func connection(
        _ connection: BenchConnection, didReceive opcode: WebSocketOpcode, payload: UnsafeMutableRawBufferPointer
    ) {
        guard opcode == .text else { return }
        self.messages += 1
        let bytes = UnsafeRawBufferPointer(payload)
        let start = UnsafeRawBufferPointer(rebasing: bytes[0..<min(bytes.count, 32)])
        if PayloadSearch.end(of: Self.errorMarker, in: start) != nil { self.errors += 1 }
        self.onText?(bytes)
    }

    func connection(_ connection: BenchConnection, didCloseWith error: String?) {
        self.onClose?(self.hasOpened)
    }
}

import EventIO

extension WebSocketConnection {
    /// What only a TLS connection, or one with the bytes of an unfinished frame or request head, holds: attached
    /// when there is some, given back when there is none, so an idle plain connection holds a nil word for both.
    final class Extras {
        var tls: TLSConnection?
        /// The bytes of an unfinished request head or frame.
        var pending: [UInt8] = []

        init(tls: TLSConnection?) {
            self.tls = tls
        }

        var isEmpty: Bool { self.tls == nil && self.pending.capacity == 0 }
    }

    /// The TLS engine; nil for plain TCP and once the connection is closed.
    var tls: TLSConnection? {
        get { self.extras?.tls }
        set { self.updateExtras { $0.tls = newValue } }
    }

    /// The bytes of an unfinished request head or frame.
    var pending: [UInt8] {
        get { self.extras?.pending ?? [] }
        set { self.updateExtras { $0.pending = newValue } }
    }

    /// Changes `extras`, attaching them first and giving them back when they end up empty.
    private func updateExtras(_ change: (Extras) -> Void) {
        let extras = self.extras ?? Extras(tls: nil)
        change(extras)
        self.extras = extras.isEmpty ? nil : extras
    }
}

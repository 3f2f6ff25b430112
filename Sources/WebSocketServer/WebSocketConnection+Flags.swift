extension WebSocketConnection {
    /// The connection's yes-or-no state, packed into one byte.
    struct Flags: OptionSet {
        let rawValue: UInt8

        static let isSecure = Flags(rawValue: 1 << 0)
        static let isWritable = Flags(rawValue: 1 << 1)
        static let holdsHandshakeSlot = Flags(rawValue: 1 << 2)
        static let holdsAddressSlot = Flags(rawValue: 1 << 3)
        static let agreedCompression = Flags(rawValue: 1 << 4)
        static let isFlushScheduled = Flags(rawValue: 1 << 5)
        static let wroteSinceSweep = Flags(rawValue: 1 << 6)
        static let isWatchingWritability = Flags(rawValue: 1 << 7)
    }

    @inline(__always)
    private func flag(_ flag: Flags) -> Bool { self.flags.contains(flag) }

    @inline(__always)
    private func setFlag(_ flag: Flags, _ value: Bool) {
        if value { self.flags.insert(flag) } else { self.flags.remove(flag) }
    }

    /// Whether the connection came in over TLS.
    public var isSecure: Bool { self.flag(.isSecure) }

    /// Whether the write queue is under its high watermark.
    public internal(set) var isWritable: Bool {
        get { self.flag(.isWritable) }
        set { self.setFlag(.isWritable, newValue) }
    }

    /// Whether this connection still counts against the pending-handshake limit.
    var holdsHandshakeSlot: Bool {
        get { self.flag(.holdsHandshakeSlot) }
        set { self.setFlag(.holdsHandshakeSlot, newValue) }
    }

    /// Whether this connection still counts against the per-address limit.
    var holdsAddressSlot: Bool {
        get { self.flag(.holdsAddressSlot) }
        set { self.setFlag(.holdsAddressSlot, newValue) }
    }

    /// Whether `compression` is set, for the per-message path.
    var agreedCompression: Bool {
        get { self.flag(.agreedCompression) }
        set { self.setFlag(.agreedCompression, newValue) }
    }

    var isFlushScheduled: Bool {
        get { self.flag(.isFlushScheduled) }
        set { self.setFlag(.isFlushScheduled, newValue) }
    }

    /// Whether anything was written since the last sweep; a connection that wrote nothing gives back the write
    /// queue's reusable buffers, so idle connections hold none.
    var wroteSinceSweep: Bool {
        get { self.flag(.wroteSinceSweep) }
        set { self.setFlag(.wroteSinceSweep, newValue) }
    }

    var isWatchingWritability: Bool {
        get { self.flag(.isWatchingWritability) }
        set { self.setFlag(.isWatchingWritability, newValue) }
    }
}

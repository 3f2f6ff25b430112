import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on 127.0.0.1 in front of a loopback server, for tests of a subscription that silently stops: every
/// connection is relayed both ways on threads of its own. From `silenceSubscribers()` until `resumeSubscribers()`,
/// what the server sends is dropped on every connection that subscribed (its client sent a `SUBSCRIBE` or
/// `SSUBSCRIBE`), those open already and those opened meanwhile. The connections stay open and their client's bytes
/// still reach the server: the client sees a connection that is up and delivers nothing, as behind a proxy or a NAT
/// that lost its state. The other connections are relayed in full.
public final class SilencingProxy: @unchecked Sendable {
    /// One relayed connection.
    private final class Relay {
        let client: Int32
        let upstream: Int32
        var isSubscriber = false
        /// Pumps that ended; the second closes both sockets.
        var finished = 0

        init(client: Int32, upstream: Int32) {
            self.client = client
            self.upstream = upstream
        }
    }

    /// The port clients connect to.
    public var port: Int { self.listener.port }
    private var listener: ScriptedServer!
    private let lock = NSLock()
    private var relays: [Relay] = []
    private var isSilencing = false

    /// Listens on a free port and relays each connection to `127.0.0.1:targetPort`.
    ///
    /// - Parameter targetPort: the server's port.
    /// - Throws: `ScriptedServerError` when it cannot listen.
    public init(forwardingTo targetPort: Int) throws {
        self.listener = try ScriptedServer { [unowned self] fd in
            let client = dup(fd)
            guard let upstream = Self.connect(to: targetPort) else {
                Glibc.close(client)
                return
            }
            let relay = Relay(client: client, upstream: upstream)
            self.lock.withLock { self.relays.append(relay) }
            Thread { self.pump(from: client, to: upstream, relay, fromClient: true) }.start()
            Thread { self.pump(from: upstream, to: client, relay, fromClient: false) }.start()
        }
    }

    deinit {
        self.close()
    }

    /// From now on drops what the server sends on every connection that subscribed, until `resumeSubscribers()`.
    ///
    /// - Returns: how many connections that subscribed are open now.
    @discardableResult
    public func silenceSubscribers() -> Int {
        self.lock.withLock {
            self.isSilencing = true
            return self.relays.filter(\.isSubscriber).count
        }
    }

    /// Relays what the server sends on every connection again (what was dropped meanwhile is lost).
    public func resumeSubscribers() {
        self.lock.withLock { self.isSilencing = false }
    }

    /// Stops listening and closes every relayed connection.
    public func close() {
        self.listener?.close()
        self.lock.withLock {
            // The pumps end and close the sockets.
            for relay in self.relays where relay.finished == 0 {
                shutdown(relay.client, Int32(SHUT_RDWR))
                shutdown(relay.upstream, Int32(SHUT_RDWR))
            }
        }
    }

    /// Copies bytes one way until either side ends, then ends both.
    private func pump(from source: Int32, to destination: Int32, _ relay: Relay, fromClient: Bool) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let subscribe = Array("SUBSCRIBE".utf8)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            let chunk = buffer[0..<count]
            let drop = self.lock.withLock { () -> Bool in
                if fromClient && !relay.isSubscriber && Self.contains(chunk, subscribe) { relay.isSubscriber = true }
                return !fromClient && relay.isSubscriber && self.isSilencing
            }
            if drop { continue }
            var sent = 0
            while sent < count {
                let n = chunk.withUnsafeBytes {
                    send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL))
                }
                guard n > 0 else { break }
                sent += n
            }
            if sent < count { break }
        }
        let isLast = self.lock.withLock { () -> Bool in
            relay.finished += 1
            if relay.finished == 1 {
                // Wakes the other pump; the sockets stay open until it ended too.
                shutdown(source, Int32(SHUT_RDWR))
                shutdown(destination, Int32(SHUT_RDWR))
                return false
            }
            self.relays.removeAll { $0 === relay }
            return true
        }
        if isLast {
            Glibc.close(relay.client)
            Glibc.close(relay.upstream)
        }
    }

    private static func contains(_ bytes: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard bytes.count >= needle.count else { return false }
        var index = bytes.startIndex
        while index + needle.count <= bytes.endIndex {
            if bytes[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }

    private static func connect(to port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            Glibc.close(fd)
            return nil
        }
        return fd
    }
}

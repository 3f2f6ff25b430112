import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A TCP listener on 127.0.0.1 that plays a script on every accepted connection, on its own thread: for replies
/// a real Redis never sends.
public final class ScriptedServer: @unchecked Sendable {
    /// The port it listens on.
    public let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var accepted = 0
    private var isClosed = false
    private var thread: Thread?

    /// Listens on a free port and runs `script` with each accepted socket (closed after it returns).
    ///
    /// - Parameter script: what to do with each accepted socket, on the listener's thread.
    /// - Throws: `ScriptedServerError` when it cannot listen.
    public init(script: @escaping @Sendable (Int32) -> Void) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound, listen(listener, 16) == 0 else {
            Glibc.close(listener)
            throw ScriptedServerError(description: "cannot listen on 127.0.0.1: errno \(errno)")
        }
        self.listener = listener
        self.port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in
            while true {
                let fd = accept(self.listener, nil, nil)
                guard fd >= 0 else { return }
                self.lock.withLock { self.accepted += 1 }
                script(fd)
                Glibc.close(fd)
            }
        }
        self.thread = thread
        thread.start()
    }

    /// How many connections were accepted.
    public var acceptedCount: Int { self.lock.withLock { self.accepted } }

    /// Stops accepting: the accept loop ends when the listener is shut down.
    public func close() {
        guard
            !self.lock.withLock({ () -> Bool in
                defer { self.isClosed = true }
                return self.isClosed
            })
        else { return }
        shutdown(self.listener, Int32(SHUT_RDWR))
        Glibc.close(self.listener)
    }

    /// Reads until `count` bytes arrived or the peer closed; returns what was read.
    ///
    /// - Parameters:
    ///   - fd: the socket.
    ///   - count: how many bytes to wait for.
    public static func read(_ fd: Int32, atLeast count: Int) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < count {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            received += buffer[0..<n]
        }
        return received
    }

    /// Writes all of `text`.
    ///
    /// - Parameters:
    ///   - fd: the socket.
    ///   - text: what to write, as UTF-8.
    public static func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}

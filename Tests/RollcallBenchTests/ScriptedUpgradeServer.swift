import Foundation
import Glibc
import WebSocketCore

/// A TCP listener on 127.0.0.1 that answers every WebSocket upgrade with a scripted `Sec-WebSocket-Extensions`
/// header, then sends scripted bytes and waits (at most 5 s) for the client to close, on its own thread: for answers
/// and frames a real server never sends.
final class ScriptedUpgradeServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let extensions: String?
    private let frames: [UInt8]
    private let lock = NSLock()
    private var heads: [String] = []
    private var isClosed = false

    /// Listens on a free port.
    ///
    /// - Parameters:
    ///   - extensions: the `Sec-WebSocket-Extensions` value of the 101 answer; nil: no such header.
    ///   - frames: the bytes sent right after the answer.
    init(extensions: String?, frames: [UInt8]) throws {
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
            throw ScriptedUpgradeServerError(description: "cannot listen on 127.0.0.1: errno \(errno)")
        }
        self.listener = listener
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.extensions = extensions
        self.frames = frames
        Thread { [self] in
            while true {
                let fd = accept(self.listener, nil, nil)
                guard fd >= 0 else { return }
                self.serve(fd)
                Glibc.close(fd)
            }
        }.start()
    }

    /// The request heads received so far.
    var requestHeads: [String] { self.lock.withLock { self.heads } }

    /// Stops accepting: the accept loop ends when the listener is shut down.
    func close() {
        let wasClosed = self.lock.withLock { () -> Bool in
            defer { self.isClosed = true }
            return self.isClosed
        }
        guard !wasClosed else { return }
        shutdown(self.listener, Int32(SHUT_RDWR))
        Glibc.close(self.listener)
    }

    private func serve(_ fd: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n"), received.count < 16 * 1024 {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            received += buffer[0..<count]
        }
        let head = String(decoding: received, as: UTF8.self)
        self.lock.withLock { self.heads.append(head) }
        let keyLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
        let key = keyLine.map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
        var answer =
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(forKey: key))\r\n"
        if let extensions = self.extensions {
            answer += "Sec-WebSocket-Extensions: \(extensions)\r\n"
        }
        answer += "\r\n"
        let bytes = Array(answer.utf8) + self.frames
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        // Until the client closes (or the timeout), so that it reads everything before the end of the stream.
        while buffer.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) > 0 {}
    }
}

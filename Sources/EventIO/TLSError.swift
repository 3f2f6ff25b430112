internal import CWebSocket

/// A failure of the TLS engine: a context that cannot be configured, a handshake the peer or the local policy
/// rejects, a fatal alert on an established connection, or a certificate that cannot be generated.
///
/// The description carries the OpenSSL error queue at the time of the failure, so that logs say why, not only where.
/// Compare failures through ``kind``; the description is for people.
public struct TLSError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, coarse enough to act on.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case invalidConfiguration
            case handshakeFailed
            case connectionFailed
            case certificateGenerationFailed
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// A context could not be built: unreadable or malformed certificate or key files, a key that does not match
        /// its certificate, or an option OpenSSL refused.
        public static let invalidConfiguration = Kind(.invalidConfiguration)
        /// The handshake failed: the peer sent something that is not TLS, offered no acceptable protocol version or
        /// cipher, or its certificate did not verify.
        public static let handshakeFailed = Kind(.handshakeFailed)
        /// An established connection failed: a fatal alert, a corrupt record, or use after a failure.
        public static let connectionFailed = Kind(.connectionFailed)
        /// A self-signed certificate could not be generated or written.
        public static let certificateGenerationFailed = Kind(.certificateGenerationFailed)

        /// The name of the kind, for logs.
        public var description: String {
            switch self.base {
            case .invalidConfiguration: "invalid TLS configuration"
            case .handshakeFailed: "TLS handshake failed"
            case .connectionFailed: "TLS connection failed"
            case .certificateGenerationFailed: "certificate generation failed"
            }
        }
    }

    /// What went wrong.
    public let kind: Kind

    /// What went wrong, the operation that failed, and the OpenSSL error queue, if any.
    public let description: String

    /// Creates an error and drains the calling thread's OpenSSL error queue into its description.
    ///
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - message: The failed operation and its subject, for example the file that could not be loaded.
    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        let queue = TLSError.drainOpenSSLErrorQueue()
        if queue.isEmpty {
            self.description = "\(kind): \(message)"
        } else {
            self.description = "\(kind): \(message) (\(queue.joined(separator: "; ")))"
        }
    }

    /// Removes every entry from the calling thread's OpenSSL error queue and returns them as text, oldest first.
    static func drainOpenSSLErrorQueue() -> [String] {
        var entries: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 {
                break
            }
            var text = [CChar](repeating: 0, count: 256)
            text.withUnsafeMutableBufferPointer { buffer in
                ERR_error_string_n(code, buffer.baseAddress, buffer.count)
            }
            let length = text.firstIndex(of: 0) ?? text.count
            entries.append(String(decoding: text[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return entries
    }
}

import HTTPCore

/// Reads one HTTP/1.1 answer to a delivery as its bytes arrive: the status line and headers through
/// `HTTPResponseParser` (interim 1xx answers skipped), then the body, which is discarded: counted through
/// `Content-Length` or chunked framing up to `maximumBodyBytes`, so the connection can carry the next delivery. A
/// larger body, or one that runs until the connection closes, ends the answer at once with the connection marked
/// for closing: the status is all a delivery needs.
struct WebhookResponseReader {
    /// What the bytes fed so far make of the answer.
    enum Outcome: Equatable {
        /// More bytes are needed.
        case incomplete
        /// The answer is complete; `keepAlive` says whether the connection may carry another request.
        case complete(status: Int, keepAlive: Bool)
        /// The answer is malformed or over a limit.
        case failed(String)
    }

    private enum Body {
        case head
        case length(remaining: Int)
        case chunkSize(line: [UInt8])
        case chunkData(remaining: Int)
        case chunkEnd(remaining: Int)
        case trailer(line: [UInt8])
    }

    private let maximumHeadBytes: Int
    private let maximumBodyBytes: Int
    private var head: [UInt8] = []
    private var parser: HTTPResponseParser
    private var body = Body.head
    private var status = 0
    private var keepAlive = true
    private var bodyBytes = 0
    /// The longest chunk-size or trailer line accepted.
    private static let maximumLineBytes = 4096

    /// - Parameters:
    ///   - maximumHeadBytes: the largest status line and headers.
    ///   - maximumBodyBytes: the largest body read (and discarded) to keep the connection.
    init(maximumHeadBytes: Int, maximumBodyBytes: Int) {
        self.maximumHeadBytes = maximumHeadBytes
        self.maximumBodyBytes = maximumBodyBytes
        self.parser = HTTPResponseParser(maximumHeadSize: maximumHeadBytes)
    }

    /// Whether any byte of the answer has arrived.
    var hasStarted: Bool { !self.head.isEmpty || self.status != 0 }

    /// Feeds the next bytes received.
    ///
    /// - Parameter bytes: bytes as received, after the ones fed before.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        var index = 0
        while index < bytes.count {
            switch self.body {
            case .head:
                let take = min(bytes.count - index, self.maximumHeadBytes + 1 - self.head.count)
                self.head.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + take)]))
                index += take
                switch self.head.withUnsafeBytes({ self.parser.parse($0) }) {
                case .incomplete:
                    continue
                case .failure(let error):
                    return .failed("the answer's head is malformed or too large: \(error)")
                case .complete(let response):
                    let rest = self.head.count - response.size
                    index -= rest
                    self.head = []
                    self.parser = HTTPResponseParser(maximumHeadSize: self.maximumHeadBytes)
                    if let outcome = self.begin(response) {
                        return Self.settled(outcome, leftover: bytes.count - index)
                    }
                }
            case .length(let remaining):
                let take = min(remaining, bytes.count - index)
                index += take
                if remaining == take {
                    return Self.settled(
                        .complete(status: self.status, keepAlive: self.keepAlive), leftover: bytes.count - index)
                }
                self.body = .length(remaining: remaining - take)
            case .chunkSize(var line), .trailer(var line):
                let byte = bytes[index]
                index += 1
                guard byte == 0x0A else {
                    guard line.count < Self.maximumLineBytes else { return .failed("a chunk line is too long") }
                    line.append(byte)
                    if case .chunkSize = self.body {
                        self.body = .chunkSize(line: line)
                    } else {
                        self.body = .trailer(line: line)
                    }
                    continue
                }
                if line.last == 0x0D { line.removeLast() }
                if case .trailer = self.body {
                    if line.isEmpty {
                        return Self.settled(
                            .complete(status: self.status, keepAlive: self.keepAlive), leftover: bytes.count - index)
                    }
                    self.body = .trailer(line: [])
                    continue
                }
                let digits = line.prefix { $0 != UInt8(ascii: ";") && $0 != 0x20 && $0 != 0x09 }
                guard !digits.isEmpty, digits.count <= 8,
                    let size = Int(String(decoding: digits, as: UTF8.self), radix: 16)
                else { return .failed("a chunk size is malformed") }
                self.bodyBytes += size
                if self.bodyBytes > self.maximumBodyBytes {
                    return .complete(status: self.status, keepAlive: false)
                }
                self.body = size == 0 ? .trailer(line: []) : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let take = min(remaining, bytes.count - index)
                index += take
                self.body = remaining == take ? .chunkEnd(remaining: 2) : .chunkData(remaining: remaining - take)
            case .chunkEnd(let remaining):
                let expected: UInt8 = remaining == 2 ? 0x0D : 0x0A
                guard bytes[index] == expected else { return .failed("a chunk does not end with CRLF") }
                index += 1
                self.body = remaining == 2 ? .chunkEnd(remaining: 1) : .chunkSize(line: [])
            }
        }
        return .incomplete
    }

    /// An answer followed by bytes nobody asked for (no request is pipelined) leaves a connection that cannot be
    /// trusted with the next request: it is closed.
    private static func settled(_ outcome: Outcome, leftover: Int) -> Outcome {
        guard leftover > 0, case .complete(let status, _) = outcome else { return outcome }
        return .complete(status: status, keepAlive: false)
    }

    /// The connection closed: an answer still incomplete has failed.
    mutating func finish() -> Outcome {
        .failed(
            self.hasStarted
                ? "the receiver closed in the middle of its answer" : "the receiver closed without an answer")
    }

    /// A head arrived: skip an interim answer, or decide how the body is framed; nil while the body is to be read.
    private mutating func begin(_ response: HTTPResponseHead) -> Outcome? {
        if (100..<200).contains(response.status) {
            guard response.status != 101 else { return .failed("the receiver switched protocols") }
            return nil
        }
        self.status = response.status
        self.keepAlive = response.version == "HTTP/1.1" && !response.containsToken("close", in: "Connection")
        if response.status == 204 || response.status == 304 {
            return .complete(status: self.status, keepAlive: self.keepAlive)
        }
        if response.value(of: "Transfer-Encoding") != nil {
            guard response.containsToken("chunked", in: "Transfer-Encoding") else {
                return .complete(status: self.status, keepAlive: false)
            }
            self.body = .chunkSize(line: [])
            return nil
        }
        guard let text = response.value(of: "Content-Length") else {
            // The body runs until the connection closes: the status is enough, the connection goes.
            return .complete(status: self.status, keepAlive: false)
        }
        guard let length = Int(text), length >= 0, response.count(of: "Content-Length") == 1 else {
            return .failed("the answer's Content-Length is malformed")
        }
        if length == 0 { return .complete(status: self.status, keepAlive: self.keepAlive) }
        if length > self.maximumBodyBytes { return .complete(status: self.status, keepAlive: false) }
        self.body = .length(remaining: length)
        return nil
    }
}

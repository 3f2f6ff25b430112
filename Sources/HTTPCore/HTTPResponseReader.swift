/// Reads one HTTP/1.1 answer to a request as its bytes arrive: the status line and headers through
/// `HTTPResponseParser` (interim 1xx answers skipped), then the body, framed by `Content-Length` or chunked
/// transfer coding (RFC 9112 §6, §7.1) and bounded by `maximumBodyBytes`; the answer to a `HEAD` request, a 204
/// and a 304 end with their head whatever their fields say (RFC 9112 §6.3).
///
/// The body is kept (`keepsBody`, for a caller that reads it) or only counted, so the connection can carry the next
/// request. A body that is only counted and is larger than the bound, or that runs until the connection closes,
/// ends the answer at once with the connection marked for closing: the status is all such a caller needs. A kept
/// body larger than the bound fails the answer; one that runs until the close ends with `finish()`.
public struct HTTPResponseReader: Sendable {
    /// What the bytes fed so far make of the answer.
    public enum Outcome: Hashable, Sendable {
        /// More bytes are needed.
        case incomplete
        /// The answer is complete; `keepAlive` says whether the connection may carry another request.
        case complete(status: Int, keepAlive: Bool)
        /// The answer is malformed or over a limit.
        case failed(String)
    }

    private enum Body: Sendable {
        case head
        case length(remaining: Int)
        case chunkSize(line: [UInt8])
        case chunkData(remaining: Int)
        case chunkEnd(remaining: Int)
        case trailer(line: [UInt8])
        /// Kept until the connection closes (`keepsBody` only).
        case untilClose
    }

    private let maximumHeadBytes: Int
    private let maximumBodyBytes: Int
    private let keepsBody: Bool
    private let isAnswerToHEAD: Bool
    private var headBytes: [UInt8] = []
    private var parser: HTTPResponseParser
    private var framing = Body.head
    private var status = 0
    private var keepAlive = true
    private var bodyBytes = 0
    /// The answer's head, once it arrived (interim answers are not kept).
    public private(set) var head: HTTPResponseHead?
    /// The body as received so far, with `keepsBody` (empty otherwise).
    public private(set) var body: [UInt8] = []
    /// The longest chunk-size or trailer line accepted.
    private static let maximumLineBytes = 4096

    /// - Parameters:
    ///   - maximumHeadBytes: the largest status line and headers.
    ///   - maximumBodyBytes: the largest body read.
    ///   - keepsBody: whether the body is kept in `body`, or only counted (and discarded).
    ///   - isAnswerToHEAD: whether the request was `HEAD`: its answer's `Content-Length` or `Transfer-Encoding`
    ///     describe the body a `GET` would get, and none follows.
    public init(maximumHeadBytes: Int, maximumBodyBytes: Int, keepsBody: Bool = false, isAnswerToHEAD: Bool = false) {
        self.maximumHeadBytes = maximumHeadBytes
        self.maximumBodyBytes = maximumBodyBytes
        self.keepsBody = keepsBody
        self.isAnswerToHEAD = isAnswerToHEAD
        self.parser = HTTPResponseParser(maximumHeadSize: maximumHeadBytes)
    }

    /// Whether any byte of the answer has arrived.
    public var hasStarted: Bool { !self.headBytes.isEmpty || self.status != 0 }

    /// Feeds the next bytes received.
    ///
    /// - Parameter bytes: bytes as received, after the ones fed before.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        var index = 0
        while index < bytes.count {
            switch self.framing {
            case .head:
                let take = min(bytes.count - index, self.maximumHeadBytes + 1 - self.headBytes.count)
                self.headBytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + take)]))
                index += take
                switch self.headBytes.withUnsafeBytes({ self.parser.parse($0) }) {
                case .incomplete:
                    continue
                case .failure(let error):
                    return .failed("the answer's head is malformed or too large: \(error)")
                case .complete(let response):
                    let rest = self.headBytes.count - response.size
                    index -= rest
                    self.headBytes = []
                    self.parser = HTTPResponseParser(maximumHeadSize: self.maximumHeadBytes)
                    if let outcome = self.begin(response) {
                        return Self.settled(outcome, leftover: bytes.count - index)
                    }
                }
            case .length(let remaining):
                let take = min(remaining, bytes.count - index)
                self.keep(bytes, index..<(index + take))
                index += take
                if remaining == take {
                    return Self.settled(
                        .complete(status: self.status, keepAlive: self.keepAlive), leftover: bytes.count - index)
                }
                self.framing = .length(remaining: remaining - take)
            case .chunkSize(var line), .trailer(var line):
                let byte = bytes[index]
                index += 1
                guard byte == 0x0A else {
                    guard line.count < Self.maximumLineBytes else { return .failed("a chunk line is too long") }
                    line.append(byte)
                    if case .chunkSize = self.framing {
                        self.framing = .chunkSize(line: line)
                    } else {
                        self.framing = .trailer(line: line)
                    }
                    continue
                }
                if line.last == 0x0D { line.removeLast() }
                if case .trailer = self.framing {
                    if line.isEmpty {
                        return Self.settled(
                            .complete(status: self.status, keepAlive: self.keepAlive), leftover: bytes.count - index)
                    }
                    self.framing = .trailer(line: [])
                    continue
                }
                let digits = line.prefix { $0 != UInt8(ascii: ";") && $0 != 0x20 && $0 != 0x09 }
                guard !digits.isEmpty, digits.count <= 8,
                    let size = Int(String(decoding: digits, as: UTF8.self), radix: 16)
                else { return .failed("a chunk size is malformed") }
                self.bodyBytes += size
                if self.bodyBytes > self.maximumBodyBytes { return self.overBound() }
                self.framing = size == 0 ? .trailer(line: []) : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let take = min(remaining, bytes.count - index)
                self.keep(bytes, index..<(index + take))
                index += take
                self.framing = remaining == take ? .chunkEnd(remaining: 2) : .chunkData(remaining: remaining - take)
            case .chunkEnd(let remaining):
                let expected: UInt8 = remaining == 2 ? 0x0D : 0x0A
                guard bytes[index] == expected else { return .failed("a chunk does not end with CRLF") }
                index += 1
                self.framing = remaining == 2 ? .chunkEnd(remaining: 1) : .chunkSize(line: [])
            case .untilClose:
                let take = bytes.count - index
                self.bodyBytes += take
                if self.bodyBytes > self.maximumBodyBytes { return self.overBound() }
                self.keep(bytes, index..<bytes.count)
                index = bytes.count
            }
        }
        return .incomplete
    }

    /// The connection closed: a body that runs until the close is complete now; any other answer still incomplete
    /// has failed.
    public mutating func finish() -> Outcome {
        if case .untilClose = self.framing { return .complete(status: self.status, keepAlive: false) }
        return .failed(
            self.hasStarted
                ? "the receiver closed in the middle of its answer" : "the receiver closed without an answer")
    }

    /// An answer followed by bytes nobody asked for (no request is pipelined) leaves a connection that cannot be
    /// trusted with the next request: it is closed.
    private static func settled(_ outcome: Outcome, leftover: Int) -> Outcome {
        guard leftover > 0, case .complete(let status, _) = outcome else { return outcome }
        return .complete(status: status, keepAlive: false)
    }

    /// A body over the bound: only counted, the status is enough and the connection goes; kept, the answer fails.
    private func overBound() -> Outcome {
        guard self.keepsBody else { return .complete(status: self.status, keepAlive: false) }
        return .failed("the answer's body is larger than \(self.maximumBodyBytes) bytes")
    }

    private mutating func keep(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) {
        guard self.keepsBody, !range.isEmpty else { return }
        self.body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[range]))
    }

    /// A head arrived: skip an interim answer, or decide how the body is framed; nil while the body is to be read.
    private mutating func begin(_ response: HTTPResponseHead) -> Outcome? {
        if (100..<200).contains(response.status) {
            guard response.status != 101 else { return .failed("the receiver switched protocols") }
            return nil
        }
        self.head = response
        self.status = response.status
        self.keepAlive = response.version == "HTTP/1.1" && !response.containsToken("close", in: "Connection")
        if self.isAnswerToHEAD || response.status == 204 || response.status == 304 {
            return .complete(status: self.status, keepAlive: self.keepAlive)
        }
        if response.value(of: "Transfer-Encoding") != nil {
            guard response.containsToken("chunked", in: "Transfer-Encoding") else { return self.untilClose() }
            self.framing = .chunkSize(line: [])
            return nil
        }
        guard let text = response.value(of: "Content-Length") else {
            // The body runs until the connection closes.
            return self.untilClose()
        }
        guard let length = Int(text), length >= 0, response.count(of: "Content-Length") == 1 else {
            return .failed("the answer's Content-Length is malformed")
        }
        if length == 0 { return .complete(status: self.status, keepAlive: self.keepAlive) }
        if length > self.maximumBodyBytes { return self.overBound() }
        self.framing = .length(remaining: length)
        return nil
    }

    /// A body that ends with the connection: read to the close when kept, else the status is enough and the
    /// connection goes.
    private mutating func untilClose() -> Outcome? {
        self.keepAlive = false
        guard self.keepsBody else { return .complete(status: self.status, keepAlive: false) }
        self.framing = .untilClose
        return nil
    }
}

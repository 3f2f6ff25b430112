import EventIO
import HTTPCore

/// One HTTP/1.1 connection to a server, on a `StreamConnection` (plain, or TLS through EventIO's engine, whose
/// context checks the server's certificate and name): one request at a time, its answer read through
/// `HTTPResponseReader`.
///
/// Reports through its callbacks, on the loop; after `close()`, or after it reported a failure, it reports nothing.
final class HTTPConnection: StreamConnectionDelegate {
    /// The connection is ready for a request (connected, and the TLS handshake done).
    var onOpen: (() -> Void)?
    /// The answer to the request arrived: the reader holds its head (and its body, when kept); `keepAlive` says
    /// whether the connection may carry another request.
    var onAnswer: ((_ answer: HTTPResponseReader, _ status: Int, _ keepAlive: Bool) -> Void)?
    /// The connection failed or the server closed it; `answerStarted` says whether part of an answer came.
    var onClose: ((_ reason: String, _ answerStarted: Bool) -> Void)?

    private let stream: StreamConnection
    private let tls: TLSConnection?
    private let authority: String
    private let maximumHeadBytes: Int
    private let maximumBodyBytes: Int
    private let keepsBody: Bool
    private var reader: HTTPResponseReader?

    /// - Parameters:
    ///   - loop: the loop the connection runs on.
    ///   - tlsContext: the client context for `https://`; nil for plain HTTP.
    ///   - serverName: the URL's host: sent as SNI (unless it is an address) and checked against the certificate.
    ///   - authority: `host:port`, for messages.
    ///   - configuration: the answer's bounds, and whether its body is kept.
    /// - Throws: `TLSError` when the engine cannot be made for the server name.
    init(
        loop: EventLoop, tlsContext: TLSContext?, serverName: String, authority: String,
        configuration: HTTPClientConfiguration
    ) throws(TLSError) {
        self.tls = try tlsContext.map { context throws(TLSError) in
            try TLSConnection(context: context, serverName: serverName)
        }
        self.stream = StreamConnection(
            loop: loop, options: StreamConnectionOptions(maximumQueuedBytes: configuration.maximumRequestBytes))
        self.authority = authority
        self.maximumHeadBytes = configuration.maximumResponseHeadBytes
        self.maximumBodyBytes = configuration.maximumResponseBodyBytes
        self.keepsBody = configuration.keepsResponseBody
        self.stream.delegate = self
    }

    /// Whether a request may be sent now: open, and no answer awaited.
    var isIdle: Bool { self.stream.phase == .open && self.reader == nil }

    /// Starts the non-blocking connect; `onOpen` or `onClose` follows.
    ///
    /// - Parameter address: the server.
    func start(to address: SocketAddress) throws(IOError) {
        try self.stream.connect(to: address, tls: self.tls)
    }

    /// Sends a request; `onAnswer` or `onClose` follows. Call only while `isIdle`.
    ///
    /// - Parameters:
    ///   - request: the request's bytes, head and body.
    ///   - answerHasNoBody: whether the answer ends with its head (the request is `HEAD`).
    func send(_ request: [UInt8], answerHasNoBody: Bool) {
        guard self.isIdle else { return }
        self.reader = HTTPResponseReader(
            maximumHeadBytes: self.maximumHeadBytes, maximumBodyBytes: self.maximumBodyBytes,
            keepsBody: self.keepsBody, isAnswerToHEAD: answerHasNoBody)
        self.stream.write(request)
    }

    /// Closes the socket without reporting anything.
    func close() {
        self.stream.close()
        self.reader = nil
    }

    // MARK: The stream's events

    func streamConnectionDidOpen(_ connection: StreamConnection) {
        self.onOpen?()
    }

    /// Answer bytes: to the reader while an answer is awaited; anything while idle ends the connection.
    func streamConnection(_ connection: StreamConnection, didReceive bytes: UnsafeMutableRawBufferPointer) -> Int {
        guard var reader = self.reader else {
            self.fail("the receiver sent bytes nobody asked for")
            return bytes.count
        }
        let outcome = reader.feed(UnsafeRawBufferPointer(bytes))
        self.reader = reader
        self.settle(outcome)
        return bytes.count
    }

    func streamConnection(_ connection: StreamConnection, didEndWith ending: StreamConnectionEnding) {
        switch ending {
        case .closedByPeer:
            guard var reader = self.reader else {
                self.report("the receiver closed the connection")
                return
            }
            let outcome = reader.finish()
            self.reader = reader
            if case .failed(let message) = outcome {
                self.report(message)
            } else {
                self.settle(outcome)
            }
        case .failed(let error):
            self.report(self.message(for: error))
        }
    }

    private func settle(_ outcome: HTTPResponseReader.Outcome) {
        switch outcome {
        case .incomplete:
            return
        case .complete(let status, let keepAlive):
            guard let reader = self.reader else { return }
            self.reader = nil
            self.onAnswer?(reader, status, keepAlive)
        case .failed(let message):
            self.fail(message)
        }
    }

    /// What went wrong, in the words of the step that failed.
    private func message(for error: StreamConnectionError) -> String {
        switch error.kind {
        case .connect: "cannot connect to \(self.authority): \(error.cause)"
        case .tlsHandshake: "TLS handshake with \(self.authority) failed: \(error.cause)"
        case .tls: "TLS with \(self.authority) failed: \(error.cause)"
        case .receive: "receive from \(self.authority) failed: \(error.cause)"
        case .send: "send to \(self.authority) failed: \(error.cause)"
        case .inputLimit, .outputLimit: "the connection to \(self.authority) failed: \(error.cause)"
        }
    }

    /// Closes the connection and reports why.
    private func fail(_ reason: String) {
        self.stream.close()
        self.report(reason)
    }

    /// Reports the end of the connection, the socket being closed already.
    private func report(_ reason: String) {
        let started = self.reader?.hasStarted ?? false
        self.reader = nil
        self.onClose?(reason, started)
    }
}

@available(*, unavailable) extension HTTPConnection: Sendable {}

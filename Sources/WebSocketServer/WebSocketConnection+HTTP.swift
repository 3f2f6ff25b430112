import EventIO
import HTTPCore

extension WebSocketConnection {
    // MARK: Plain HTTP requests

    /// Routes a request that is not an upgrade: answers at once when no route takes it, else reads its body.
    func startHTTPRequest(_ head: HTTPRequestHead, startedAt: UInt64) {
        let route: HTTPRoute
        switch self.server.dispatchHTTP(head) {
        case .response(let response):
            let lingers = head.value(of: "Content-Length") != nil || head.value(of: "Transfer-Encoding") != nil
            self.respond(head.hasMethod("HEAD") ? HTTPResponse.withoutBody(response) : response, lingering: lingers)
            return
        case .route(let found):
            route = found
        }
        let length: Int
        switch Self.bodyLength(of: head, limit: self.server.configuration.maximumHTTPBodySize) {
        case .failure(let status, let message):
            self.respond(HTTPResponse.error(status, message: message), lingering: true)
            return
        case .length(let value):
            length = value
        }
        let request = PlainHTTPRequest(head: head, route: route, length: length, startedAt: startedAt)
        if length == 0 {
            self.dispatchHTTPRequest(request)
        } else {
            self.enter(.readingBody(request))
        }
    }

    enum BodyLength: Equatable {
        case length(Int)
        case failure(HTTPStatus, String)
    }

    /// The body length a request head announces, or why it is refused: any `Transfer-Encoding` (chunked bodies are
    /// not read: 411, asking for a `Content-Length`; other codings are not implemented: 501), a malformed or
    /// conflicting `Content-Length` (400), or one over `limit` (413).
    static func bodyLength(of head: HTTPRequestHead, limit: Int) -> BodyLength {
        if head.count(of: "Transfer-Encoding") > 0 {
            if head.containsToken("chunked", in: "Transfer-Encoding") {
                return .failure(.lengthRequired, "chunked request bodies are not accepted; send Content-Length")
            }
            return .failure(.notImplemented, "transfer codings are not implemented")
        }
        var length: Int?
        for value in head.values(of: "Content-Length") {
            for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                let text = String(
                    item.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
                guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                    let number = Int(text)
                else {
                    return .failure(.badRequest, "malformed Content-Length")
                }
                if let length, length != number { return .failure(.badRequest, "conflicting Content-Length values") }
                length = number
            }
        }
        guard let length else { return .length(0) }
        guard length <= limit else {
            return .failure(.payloadTooLarge, "request body over \(limit) bytes")
        }
        return .length(length)
    }

    /// Reads body bytes; once the body is complete, hands the request to its route.
    func processBody(_ bytes: UnsafeMutableRawBufferPointer) -> Int {
        guard case .readingBody(let request) = self.phase, request.append(UnsafeRawBufferPointer(bytes)) else {
            return bytes.count
        }
        self.dispatchHTTPRequest(request)
        // Anything after the body (a pipelined request) is not served: every response closes the connection.
        return bytes.count
    }

    /// Hands the complete request to its route with a responder that may answer from any thread.
    private func dispatchHTTPRequest(_ request: PlainHTTPRequest) {
        self.enter(.awaitingResponse(dispatchedAt: self.loop.now))
        let loop = UncheckedBox(self.loop)
        let connection = UncheckedBox(self)
        // A HEAD request is handled as the GET it stands for, and answered without the body.
        let isHead = request.head.hasMethod("HEAD")
        let responder = HTTPResponder { response in
            let bytes = isHead ? HTTPResponse.withoutBody(response) : response
            if loop.value.inEventLoop {
                connection.value.deliverHTTPResponse(bytes)
            } else {
                loop.value.execute { connection.value.deliverHTTPResponse(bytes) }
            }
        }
        request.route.handle(
            HTTPRequest(head: request.head, body: request.body, remoteAddress: self.remoteAddress),
            responder
        )
    }

    private func deliverHTTPResponse(_ response: [UInt8]) {
        guard case .awaitingResponse = self.phase else { return }
        self.respond(response)
    }

    /// Queues an HTTP response; the socket closes once it is written.
    ///
    /// - Parameters:
    ///   - response: the whole response.
    ///   - lingering: whether the client may still be sending a body we did not read (see `HTTPResponding`).
    func respond(_ response: [UInt8], lingering: Bool = false) {
        self.writeRaw(response)
        // A TLS write that failed has closed the connection already.
        guard !self.phase.isClosed else { return }
        self.enter(.respondingHTTP(HTTPResponding(since: self.loop.now, lingers: lingering)))
    }
}

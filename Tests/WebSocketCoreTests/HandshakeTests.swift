import HTTPCore
import TestSupport
import Testing
import WebSocketCore

/// The sample request with some lines replaced or removed: `replacing` maps a field name to its new lines
/// (none removes the field).
private func sample(
    replacing replacements: [String: [String]] = [:], requestLine: String = "GET /chat HTTP/1.1"
)
    -> String
{
    var lines = [requestLine]
    var unused = replacements
    for line in sampleRequest.split(separator: "\r\n").dropFirst() {
        let name = String(line.prefix { $0 != ":" })
        if let replacement = unused.removeValue(forKey: name) {
            lines += replacement
        } else if replacements[name] == nil {
            lines.append(String(line))
        }
    }
    // Fields the sample does not have are added at the end.
    for name in unused.keys.sorted() { lines += unused[name] ?? [] }
    return lines.map { $0 + "\r\n" }.joined() + "\r\n"
}

private func validate(
    _ text: String,
    limits: HTTPRequestParser.Limits = .init()
) -> Result<WebSocketUpgradeRequest, HandshakeRejection>? {
    guard case .complete(let head) = parseWhole(Array(text.utf8), limits: limits) else { return nil }
    return WebSocketHandshake.validate(head)
}

/// The rejection's status code, or nil when the request was accepted or could not be parsed.
private func rejectionCode(_ text: String) -> Int? {
    guard case .failure(let rejection) = validate(text) else { return nil }
    return rejection.status.code
}

private func accepted(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> WebSocketUpgradeRequest? {
    switch validate(text) {
    case .success(let request):
        return request
    case .failure(let rejection):
        Issue.record("rejected: \(rejection)", sourceLocation: sourceLocation)
        return nil
    case nil:
        Issue.record("the request did not parse", sourceLocation: sourceLocation)
        return nil
    }
}

@Suite struct HandshakeTests {
    @Test func acceptValueMatchesTheRFC6455Sample() {
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func sampleRequestIsAccepted() throws {
        #expect(sample() == sampleRequest)
        let request = try #require(accepted(sampleRequest))
        #expect(request.path == "/chat")
        #expect(request.query == nil)
        #expect(request.key == "dGhlIHNhbXBsZSBub25jZQ==")
        #expect(request.origin == "http://example.com")
        #expect(request.requestedProtocols == ["chat", "superchat"])
        #expect(request.extensions == "")
        let head = try #require(parseHead(sampleRequest))
        #expect(WebSocketHandshake.isUpgradeRequest(head))
    }

    @Test func switchingProtocolsResponseCarriesTheAcceptValue() {
        let response = String(
            decoding: WebSocketHandshake.switchingProtocolsResponse(
                key: "dGhlIHNhbXBsZSBub25jZQ==",
                subprotocol: "chat",
                extensions: nil
            ),
            as: UTF8.self
        )
        #expect(
            response == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: chat\r\n\r\n"
        )
        let plain = String(
            decoding: WebSocketHandshake.switchingProtocolsResponse(key: "x", subprotocol: nil, extensions: "e"),
            as: UTF8.self
        )
        #expect(!plain.contains("Sec-WebSocket-Protocol"))
        #expect(plain.hasSuffix("Sec-WebSocket-Extensions: e\r\n\r\n"))
    }

    @Test func headerNamesAndTokensAreMatchedWithoutRegardToCase() {
        let text = """
            GET /chat?room=7 HTTP/1.1\r
            host: server.example.com\r
            UPGRADE: WebSocket\r
            connection: keep-alive, Upgrade\r
            sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r
            SEC-WEBSOCKET-VERSION: 13\r
            \r

            """
        let request = accepted(text)
        #expect(request?.query == "room=7")
        #expect(request?.path == "/chat")
        #expect(request?.origin == nil)
        #expect(request?.requestedProtocols == [])
    }

    @Test func connectionTokensMaySpanSeveralFields() {
        #expect(accepted(sample(replacing: ["Connection": ["Connection: keep-alive", "Connection: upgrade"]])) != nil)
        #expect(accepted(sample(replacing: ["Upgrade": ["Upgrade: h2c, websocket"]])) != nil)
    }

    @Test func plainRequestIsNotAnUpgrade() throws {
        let head = try #require(parseHead("GET / HTTP/1.1\r\nHost: a\r\n\r\n"))
        #expect(!WebSocketHandshake.isUpgradeRequest(head))
    }

    // MARK: Rejections

    @Test func missingOrWrongUpgradeTokensAreRefusedWith400() {
        #expect(rejectionCode(sample(replacing: ["Upgrade": []])) == 400)
        #expect(rejectionCode(sample(replacing: ["Upgrade": ["Upgrade: websocket2"]])) == 400)
        #expect(rejectionCode(sample(replacing: ["Connection": []])) == 400)
        #expect(rejectionCode(sample(replacing: ["Connection": ["Connection: keep-alive"]])) == 400)
        #expect(rejectionCode(sample(replacing: ["Connection": ["Connection: upgraded"]])) == 400)
    }

    @Test(arguments: [
        // Missing, duplicated, empty.
        [] as [String],
        ["Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="],
        ["Sec-WebSocket-Key:"],
        // 15 and 17 bytes.
        ["Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25j"],
        ["Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZTE="],
        // Not base64, or base64 without its padding.
        ["Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ"],
        ["Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZ!=="],
    ])
    func badKeysAreRefusedWith400(keyLines: [String]) {
        #expect(Base64.decode("dGhlIHNhbXBsZSBub25j".utf8)?.count == 15)
        #expect(Base64.decode("dGhlIHNhbXBsZSBub25jZTE=".utf8)?.count == 17)
        #expect(rejectionCode(sample(replacing: ["Sec-WebSocket-Key": keyLines])) == 400)
    }

    @Test(arguments: [["Sec-WebSocket-Version: 8"], [], ["Sec-WebSocket-Version: 13", "Sec-WebSocket-Version: 13"]])
    func otherVersionsAreRefusedWith426(versionLines: [String]) {
        guard case .failure(let rejection) = validate(sample(replacing: ["Sec-WebSocket-Version": versionLines])) else {
            Issue.record("expected a rejection")
            return
        }
        #expect(rejection.status.code == 426)
        #expect(rejection.headers.map { [$0.0, $0.1] } == [["Sec-WebSocket-Version", "13"]])
        let response = String(decoding: rejection.response, as: UTF8.self)
        #expect(response.hasPrefix("HTTP/1.1 426 Upgrade Required\r\n"))
        #expect(response.contains("\r\nSec-WebSocket-Version: 13\r\n"))
    }

    @Test func otherMethodsAreRefusedWith405() {
        guard case .failure(let rejection) = validate(sample(requestLine: "POST /chat HTTP/1.1")) else {
            Issue.record("expected a rejection")
            return
        }
        #expect(rejection.status.code == 405)
        #expect(rejection.headers.map { [$0.0, $0.1] } == [["Allow", "GET"]])
        #expect(rejectionCode(sample(requestLine: "get /chat HTTP/1.1")) == 405)
    }

    @Test func http10IsRefusedWith400() {
        #expect(rejectionCode(sample(requestLine: "GET /chat HTTP/1.0")) == 400)
        #expect(rejectionCode(sample(requestLine: "GET /chat HTTP/1.2")) == 400)
    }

    @Test func missingOrRepeatedHostIsRefusedWith400() {
        #expect(rejectionCode(sample(replacing: ["Host": []])) == 400)
        #expect(rejectionCode(sample(replacing: ["Host": ["Host: a", "Host: b"]])) == 400)
    }

    // MARK: Subprotocols and extensions

    @Test func subprotocolIsChosenInTheClientsOrder() throws {
        let request = try #require(accepted(sampleRequest))
        #expect(request.selectProtocol(from: ["superchat", "chat"]) == "chat")
        #expect(request.selectProtocol(from: ["superchat"]) == "superchat")
        #expect(request.selectProtocol(from: ["other"]) == nil)
        #expect(request.selectProtocol(from: []) == nil)
    }

    @Test func subprotocolListsAreJoinedAndTrimmed() throws {
        let text = sample(replacing: [
            "Sec-WebSocket-Protocol": [
                "Sec-WebSocket-Protocol:  , v2.chat ,,\tv1.chat\t,", "Sec-WebSocket-Protocol: x",
            ]
        ])
        let request = try #require(accepted(text))
        #expect(request.requestedProtocols == ["v2.chat", "v1.chat", "x"])
        #expect(request.selectProtocol(from: ["v1.chat", "x"]) == "v1.chat")
    }

    @Test func extensionValuesAreJoinedWithCommas() throws {
        let text = sample(replacing: [
            "Sec-WebSocket-Extensions": [
                "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits",
                "Sec-WebSocket-Extensions: x-other",
            ]
        ])
        let request = try #require(accepted(text))
        #expect(request.extensions == "permessage-deflate; client_max_window_bits, x-other")
        let offers = WebSocketExtensionOffer.parse(request.extensions)
        #expect(offers?.map(\.name) == ["permessage-deflate", "x-other"])
    }

    @Test(arguments: [",", ";", ", ", "; ", ",a", ";a", "a;", "a=\"", "\\"])
    func hostileListHeadersAreParsedInBoundedTime(unit: String) throws {
        let value = String(repeating: unit, count: 8192 / unit.utf8.count)
        let limits = HTTPRequestParser.Limits(maximumHeadSize: 20000)
        let text = sample(replacing: [
            "Sec-WebSocket-Protocol": ["Sec-WebSocket-Protocol: " + value],
            "Sec-WebSocket-Extensions": ["Sec-WebSocket-Extensions: " + value],
        ])
        #expect(text.utf8.count > 8192)
        guard case .success(let request) = validate(text, limits: limits) else {
            Issue.record("the request must still be a valid upgrade")
            return
        }
        // Every offered subprotocol is a non-empty piece of the value: at most one per two bytes.
        #expect(request.requestedProtocols.count <= value.utf8.count / 2 + 1)
        #expect(request.requestedProtocols.allSatisfy { !$0.isEmpty && value.contains($0) })
        #expect(request.extensions == value.trimmingWhitespace)
        // The extension parser keeps at most its bounded number of offers, or refuses the value.
        if let offers = WebSocketExtensionOffer.parse(request.extensions) {
            #expect(offers.count <= WebSocketExtensionOffer.maximumExtensionCount)
            #expect(offers.allSatisfy { $0.parameters.count <= WebSocketExtensionOffer.maximumParameterCount })
        }
    }

    @Test func hostileListsOfSeparatorsGiveNothingToSelect() throws {
        let commas = String(repeating: ",", count: 8192)
        let limits = HTTPRequestParser.Limits(maximumHeadSize: 20000)
        let text = sample(replacing: [
            "Sec-WebSocket-Protocol": ["Sec-WebSocket-Protocol: " + commas],
            "Sec-WebSocket-Extensions": ["Sec-WebSocket-Extensions: " + commas],
        ])
        guard case .success(let request) = validate(text, limits: limits) else {
            Issue.record("the request must still be a valid upgrade")
            return
        }
        #expect(request.requestedProtocols == [])
        #expect(request.selectProtocol(from: ["chat"]) == nil)
        #expect(WebSocketExtensionOffer.parse(request.extensions) == [])
        #expect(WebSocketExtensionOffer.parse(String(repeating: ";", count: 8192)) == nil)
        #expect(WebSocketExtensionOffer.parse(String(repeating: ",a", count: 4096)) == nil)
        #expect(WebSocketExtensionOffer.parse("a" + String(repeating: ";b", count: 4096)) == nil)
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs, as a header value is stored.
    fileprivate var trimmingWhitespace: String {
        let scalars = self.unicodeScalars
        let start = scalars.firstIndex { $0 != " " && $0 != "\t" } ?? scalars.endIndex
        let end = scalars.lastIndex { $0 != " " && $0 != "\t" }.map { scalars.index(after: $0) } ?? start
        return String(scalars[start..<max(start, end)])
    }
}

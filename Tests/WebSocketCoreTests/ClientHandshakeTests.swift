import HTTPCore
import TestSupport
import Testing
import WebSocketCore

/// The RFC 6455 §1.3 sample key and the accept value it calls for.
private let sampleKey = "dGhlIHNhbXBsZSBub25jZQ=="
private let sampleAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

/// A 101 answer with the sample accept value, and `extra` lines before the blank line.
private func answer(_ extra: [String] = []) -> [UInt8] {
    sampleAnswer(extra)
}

private func parsedHead(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> HTTPResponseHead? {
    guard case .complete(let head) = feedResponse(bytes, mode: .whole).result else {
        Issue.record("the response did not parse", sourceLocation: sourceLocation)
        return nil
    }
    return head
}

private func validationError(_ bytes: [UInt8], subprotocols: [String] = []) -> WebSocketClientHandshakeError? {
    guard let head = parsedHead(bytes) else { return nil }
    do {
        _ = try WebSocketClientHandshake(key: sampleKey, subprotocols: subprotocols).validate(head)
        return nil
    } catch {
        return error
    }
}

@Suite("Client handshake")
struct ClientHandshakeTests {
    @Test("The request carries the key, the version, the offers and the extra fields")
    func requestCarriesEverything() throws {
        let handshake = WebSocketClientHandshake(keyBytes: Array("the sample nonce".utf8), subprotocols: ["a", "b"])
        #expect(handshake.key == sampleKey)
        #expect(handshake.expectedAccept == sampleAccept)
        let request = try handshake.request(
            target: "/chat?x=1", host: "server.example.com", extensions: "permessage-deflate",
            headers: [("Authorization", "Bearer t")])
        #expect(
            String(decoding: request, as: UTF8.self)
                == "GET /chat?x=1 HTTP/1.1\r\nHost: server.example.com\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                + "Sec-WebSocket-Protocol: a, b\r\nSec-WebSocket-Extensions: permessage-deflate\r\n"
                + "Authorization: Bearer t\r\n\r\n")
    }

    @Test("The request the client builds is one the server accepts")
    func serverAcceptsTheRequest() throws {
        let request = try WebSocketClientHandshake(key: sampleKey).request(target: "/echo", host: "127.0.0.1:9001")
        guard case .complete(let head) = parseWhole(request) else {
            Issue.record("the request did not parse")
            return
        }
        guard case .success(let upgrade) = WebSocketHandshake.validate(head) else {
            Issue.record("the server refused the request")
            return
        }
        #expect(upgrade.key == sampleKey)
    }

    @Test("A field with a line break is refused before anything is sent")
    func lineBreakInFieldIsRefused() {
        let handshake = WebSocketClientHandshake(key: sampleKey)
        #expect(throws: WebSocketClientHandshakeError.self) {
            try handshake.request(target: "/", host: "h", headers: [("X-Evil", "a\r\nInjected: yes")])
        }
        #expect(throws: WebSocketClientHandshakeError.self) {
            try handshake.request(target: "/", host: "h", headers: [("X:Evil", "a")])
        }
    }

    @Test("A good 101 is accepted, and the bytes after it are left for the frames")
    func good101IsAccepted() throws {
        let frames: [UInt8] = [0x81, 0x02, 0x68, 0x69]
        let bytes = answer(["Sec-WebSocket-Extensions: permessage-deflate", "Sec-WebSocket-Protocol: b"]) + frames
        let head = try #require(parsedHead(bytes))
        #expect(head.status == 101)
        #expect(head.version == "HTTP/1.1")
        #expect(head.reason == "Switching Protocols")
        #expect(Array(bytes[head.size...]) == frames)
        let upgrade = try WebSocketClientHandshake(key: sampleKey, subprotocols: ["a", "b"]).validate(head)
        #expect(upgrade == WebSocketClientUpgrade(subprotocol: "b", extensions: "permessage-deflate"))
    }

    @Test("Header names and the Upgrade and Connection tokens match without regard to case")
    func caseDoesNotMatter() {
        let lines = [
            "HTTP/1.1 101 Switching Protocols", "upgrade: WebSocket", "CONNECTION: keep-alive, UPGRADE",
            "sec-websocket-accept: \(sampleAccept)",
        ]
        #expect(validationError(Array((lines.map { $0 + "\r\n" }.joined() + "\r\n").utf8)) == nil)
    }

    @Test("A wrong, missing or repeated Sec-WebSocket-Accept is refused")
    func wrongAcceptIsRefused() {
        let wrong = Array(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: nope\r\n\r\n"
                .utf8)
        #expect(validationError(wrong)?.description == "Sec-WebSocket-Accept does not match the key")
        let missing = Array("HTTP/1.1 101 OK\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n".utf8)
        #expect(validationError(missing) != nil)
        #expect(validationError(answer(["Sec-WebSocket-Accept: \(sampleAccept)"])) != nil)
    }

    @Test("A 101 without Upgrade: websocket or Connection: upgrade is refused")
    func missingUpgradeIsRefused() {
        let noUpgrade = Array(
            "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(sampleAccept)\r\n\r\n"
                .utf8)
        #expect(validationError(noUpgrade)?.description == "the response lacks Upgrade: websocket")
        let noConnection = Array(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nSec-WebSocket-Accept: \(sampleAccept)\r\n\r\n"
                .utf8)
        #expect(validationError(noConnection)?.description == "the response lacks Connection: upgrade")
    }

    @Test("A 4xx answer is refused with its status")
    func clientErrorIsRefused() {
        let bytes = Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n".utf8)
        let error = validationError(bytes)
        #expect(error?.status == 403)
        #expect(error?.description == "the server answered 403 instead of 101: HTTP/1.1 403 Forbidden")
    }

    @Test("A subprotocol that was not offered is refused")
    func unofferedSubprotocolIsRefused() {
        #expect(validationError(answer(["Sec-WebSocket-Protocol: c"]), subprotocols: ["a"]) != nil)
        #expect(validationError(answer(["Sec-WebSocket-Protocol: a"])) != nil)
    }

    @Test(
        "A response fed one byte at a time completes only at its last byte",
        arguments: [
            FeedingMode.byteByByte, .randomChunks(seed: 1), .randomChunks(seed: 42),
        ])
    func partialBytesWait(mode: FeedingMode) throws {
        let bytes = answer(["Sec-WebSocket-Extensions: permessage-deflate"])
        let (result, incompleteCalls) = feedResponse(bytes, mode: mode)
        guard case .complete(let head) = result else {
            Issue.record("the response did not complete")
            return
        }
        #expect(incompleteCalls == mode.chunkSizes(for: bytes.count).count - 1)
        #expect(head.size == bytes.count)
        #expect(try WebSocketClientHandshake(key: sampleKey).validate(head).extensions == "permessage-deflate")
    }
}

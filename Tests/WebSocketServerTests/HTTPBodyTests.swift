import EventIO
import Foundation
import Glibc
import HTTPCore
import Testing
import WebSocketServer
import WebSocketTestSupport

/// Plain HTTP requests with bodies, answered by asynchronous routes.
@Suite("HTTP request bodies and asynchronous routes")
struct HTTPBodyTests {
    /// A route that answers from another thread with the method, the body length and the body.
    static let echoRoute = HTTPRoute(path: "/body", methods: ["POST", "GET"]) { request, responder in
        let summary = "\(request.method) \(request.body.count) " + String(decoding: request.body, as: UTF8.self)
        Thread.detachNewThread {
            usleep(20_000)
            responder.respond(status: .ok, body: Array(summary.utf8))
        }
    }

    private func exchange(
        _ request: String,
        parts: [String] = [],
        configure: (inout ServerConfiguration) -> Void = { _ in },
        routes: [HTTPRoute] = [HTTPBodyTests.echoRoute]
    ) throws -> (TestHTTPResponse, String) {
        let server = try LiveServer(configure, httpRoutes: routes)
        defer { server.stop() }
        let client = try TestClient(connectingTo: server.address)
        try client.send(Array(request.utf8))
        for part in parts {
            usleep(30_000)
            try client.send(Array(part.utf8))
        }
        let head = try client.readResponseHead()
        let body = String(decoding: try client.readUntilEndOfStream(), as: UTF8.self)
        return (head, body)
    }

    @Test("a Content-Length body split over several segments reaches the route, which answers from another thread")
    func bodyInPieces() throws {
        let (head, body) = try self.exchange(
            "POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhel",
            parts: ["lo ", "world"]
        )
        #expect(head.status == 200)
        #expect(body == "POST 11 hello world")
    }

    @Test("a request without a body gets an empty one")
    func noBody() throws {
        let (head, body) = try self.exchange("GET /body HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(head.status == 200)
        #expect(body == "GET 0 ")
    }

    @Test("a body over limits.max_http_body_bytes is refused with 413 before it is read")
    func tooLarge() throws {
        let (head, _) = try self.exchange(
            "POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 101\r\n\r\n",
            configure: { $0.maximumHTTPBodySize = 100 }
        )
        #expect(head.status == 413)
    }

    @Test("a body of exactly the limit is accepted")
    func exactlyTheLimit() throws {
        let payload = String(repeating: "a", count: 100)
        let (head, body) = try self.exchange(
            "POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + payload,
            configure: { $0.maximumHTTPBodySize = 100 }
        )
        #expect(head.status == 200)
        #expect(body == "POST 100 " + payload)
    }

    @Test("chunked bodies get 411, other transfer codings 501")
    func transferEncoding() throws {
        let (chunked, _) = try self.exchange(
            "POST /body HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        #expect(chunked.status == 411)
        let (gzip, _) = try self.exchange("POST /body HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n")
        #expect(gzip.status == 501)
    }

    @Test("malformed or conflicting Content-Length values get 400")
    func badContentLength() throws {
        let (malformed, _) = try self.exchange("POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n")
        #expect(malformed.status == 400)
        let (conflicting, _) = try self.exchange(
            "POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"
        )
        #expect(conflicting.status == 400)
    }

    @Test("a body that does not arrive within the handshake timeout gets 408")
    func slowBody() throws {
        let (head, _) = try self.exchange(
            "POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc",
            configure: { $0.handshakeTimeoutMilliseconds = 200 }
        )
        #expect(head.status == 408)
    }

    @Test("a route that never answers gets 503 after the handshake timeout")
    func silentRoute() throws {
        let silent = HTTPRoute(path: "/silent") { _, _ in }
        let (head, _) = try self.exchange(
            "GET /silent HTTP/1.1\r\nHost: x\r\n\r\n",
            configure: { $0.handshakeTimeoutMilliseconds = 200 },
            routes: [silent]
        )
        #expect(head.status == 503)
    }

    @Test("the synchronous form still works, prefix routes serve their subpaths, other methods get 405")
    func synchronousAndPrefixRoutes() throws {
        let sync = HTTPRoute(path: "/sync") { head in
            HTTPResponse.encode(status: .ok, body: Array(head.path.utf8))
        }
        let prefix = HTTPRoute(path: "/api", methods: ["GET"], matchesSubpaths: true) { request, responder in
            responder.respond(status: .ok, body: Array(request.path.utf8))
        }
        let (syncHead, syncBody) = try self.exchange("GET /sync HTTP/1.1\r\nHost: x\r\n\r\n", routes: [sync])
        #expect(syncHead.status == 200 && syncBody == "/sync")
        let (subHead, subBody) = try self.exchange("GET /api/rooms/a HTTP/1.1\r\nHost: x\r\n\r\n", routes: [prefix])
        #expect(subHead.status == 200 && subBody == "/api/rooms/a")
        let (other, _) = try self.exchange("GET /apiary HTTP/1.1\r\nHost: x\r\n\r\n", routes: [prefix])
        #expect(other.status == 404)
        let (method, _) = try self.exchange("DELETE /sync HTTP/1.1\r\nHost: x\r\n\r\n", routes: [sync])
        #expect(method.status == 405)
    }

    @Test("per-loop counters move with WebSocket traffic and connections are counted by transport")
    func countersMove() throws {
        try LiveServer.with { server in
            let statistics = server.server.statistics
            let before = statistics.snapshot
            let client = try server.openClient()
            #expect(try client.echo(text: "counted") == "counted")
            let after = statistics.snapshot
            #expect(after["messages_received"]! == before["messages_received"]! + 1)
            #expect(after["messages_sent"]! == before["messages_sent"]! + 1)
            #expect(after["bytes_received"]! > before["bytes_received"]!)
            #expect(after["bytes_sent"]! > before["bytes_sent"]!)
            #expect(statistics.acceptedConnectionsByTransport.plain >= 1)
            #expect(statistics.openConnectionsByTransport.plain == 1)
            #expect(statistics.loops[0].connections == 1)
            #expect(statistics.loops[0].eventLoop.iterations > 0)
        }
    }

    @Test("refused upgrades are counted by status")
    func refusedByStatus() throws {
        try LiveServer.with { server in
            let client = try TestClient(connectingTo: server.address)
            let response = try client.handshake(path: "/nowhere")
            #expect(response.status == 404)
            let count = server.server.statistics.rejectedHandshakesByStatus.first { $0.status == 404 }?.count
            #expect(count == 1)
        }
    }
}

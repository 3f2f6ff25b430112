import EventIO
import Foundation
import Glibc
import HTTPCore
import Testing
import WebSocketServer
import WebSocketTestSupport

/// Upgrade requests built to fail or to cost the server, and crowds of connections: each gets its exact status or
/// is closed at its limit, while a bystander is served within a bound.
@Suite("Hostile handshakes and connection crowds over live sockets")
struct HostileHandshakeTests {
    /// Sends a request on a fresh connection and returns the response, after checking the connection is closed
    /// when the status is an error. The attacker waits at most 2 s for the answer.
    private func response(to request: [UInt8], on server: LiveServer) throws -> TestHTTPResponse {
        let attacker = try TestClient(connectingTo: server.address, timeout: 2)
        try attacker.send(request)
        let response = try attacker.readResponseHead()
        if response.status != 101 { #expect(attacker.serverClosesConnection(within: 2)) }
        return response
    }

    @Test("Protocol and extension headers built to make a parser slow are answered at once")
    func pathologicalHeaderValues() throws {
        let quotes = String(repeating: "\";,\\\"", count: 1_400)
        let separators = String(repeating: ";,", count: 3_500)
        let parameters = "permessage-deflate" + String(repeating: "; a=\"\\\"", count: 900)
        let values = [quotes, separators, parameters, String(repeating: ",", count: 7_000)]
        try underAttack({ $0.subprotocols = ["rollcall.v1"] }) { server in
            for value in values {
                // Offered as subprotocols: none matches, so the upgrade goes ahead without one.
                let offered = try self.response(
                    to: TestClient.upgradeRequest(extraHeaders: [("Sec-WebSocket-Protocol", value)]),
                    on: server
                )
                #expect(offered.status == 101)
                #expect(offered.header("Sec-WebSocket-Protocol") == nil)
                // Offered as extensions: nothing acceptable, so the connection runs uncompressed.
                let extensions = try self.response(
                    to: TestClient.upgradeRequest(extraHeaders: [("Sec-WebSocket-Extensions", value)]),
                    on: server
                )
                #expect(extensions.status == 101)
                #expect(extensions.header("Sec-WebSocket-Extensions") == nil)
            }
        }
    }

    @Test("A wrong key, version or method gets its exact status")
    func wrongKeyVersionAndMethod() throws {
        func request(
            method: String = "GET", key: String? = "dGhlIHNhbXBsZSBub25jZQ==", version: String = "13"
        ) -> [UInt8] {
            var text = "\(method) /echo HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            if let key { text += "Sec-WebSocket-Key: \(key)\r\n" }
            text += "Sec-WebSocket-Version: \(version)\r\n\r\n"
            return Array(text.utf8)
        }
        try underAttack { server in
            for key in [
                "short", "dGhlIHNhbXBsZSBub25jZQ", "!!!!!!!!!!!!!!!!!!!!!!==", "AAAAAAAAAAAAAAAAAAAAAAAAAAAA", "",
            ] {
                #expect(try self.response(to: request(key: key), on: server).status == 400, "key '\(key)'")
            }
            #expect(try self.response(to: request(key: nil), on: server).status == 400)
            for version in ["8", "12", "14", "0", "x"] {
                let answer = try self.response(to: request(version: version), on: server)
                #expect(answer.status == 426, "version \(version)")
                #expect(answer.header("Sec-WebSocket-Version") == "13")
            }
            for method in ["POST", "PUT", "DELETE", "OPTIONS"] {
                #expect(try self.response(to: request(method: method), on: server).status == 405, "method \(method)")
            }
            #expect(try self.response(to: request(), on: server).status == 101)
        }
    }

    @Test("A cross-origin upgrade outside the allow-list gets 403")
    func crossOriginUpgrade() throws {
        try underAttack({ $0.allowedOrigins = ["https://app.example.com"] }) { server in
            for origin in [
                "https://evil.example.com", "https://app.example.com.evil.net", "http://app.example.com", "null",
            ] {
                let answer = try self.response(
                    to: TestClient.upgradeRequest(extraHeaders: [("Origin", origin)]), on: server)
                #expect(answer.status == 403, "origin \(origin)")
            }
            let allowed = try self.response(
                to: TestClient.upgradeRequest(extraHeaders: [("Origin", "https://app.example.com")]),
                on: server
            )
            #expect(allowed.status == 101)
            // Clients without an Origin (native apps, bots) are not browsers: allowed.
            #expect(try self.response(to: TestClient.upgradeRequest(), on: server).status == 101)
        }
    }

    @Test("Two thousand handshakes that never finish are bounded, then dropped at the timeout")
    func halfOpenHandshakes() throws {
        _ = System.raiseOpenFileLimit()
        let limit = 500
        try underAttack({
            $0.maximumPendingHandshakes = limit
            $0.maximumConnectionsPerAddress = 10_000
            $0.handshakeTimeoutMilliseconds = 3_000
        }) { server in
            let request = TestClient.upgradeRequest()
            let half = Array(request[0..<(request.count / 2)])
            var stalled: [TestClient] = []
            var highest = 0
            for index in 0..<2_000 {
                let client = try TestClient(connectingTo: server.address, timeout: 2)
                try client.send(half)
                stalled.append(client)
                if index % 50 == 0 { highest = max(highest, server.server.pendingHandshakeCount) }
            }
            // The bystander's handshake was done before; it still counts nowhere.
            highest = max(highest, server.server.pendingHandshakeCount)
            #expect(highest <= limit)
            let deadline = Date().addingTimeInterval(8)
            while server.server.pendingHandshakeCount > 0 && Date() < deadline { usleep(20_000) }
            #expect(server.server.pendingHandshakeCount == 0)
            let statistics = server.server.statistics.snapshot
            let refused = statistics["connections_rejected_pending_handshakes"] ?? 0
            let timedOut = statistics["handshake_timeouts"] ?? 0
            #expect(refused >= 2_000 - limit)
            #expect(refused + timedOut == 2_000)
            usleep(100_000)
            #expect(stalled.filter { !$0.isClosedByServer() }.count == 0)
            // Once they are gone, handshakes are accepted again.
            let newcomer = try server.openClient()
            #expect(try newcomer.echo(text: "after the crowd") == "after the crowd")
        }
    }

    @Test("Connections from one IP over the limit are closed at once; other IPs are served")
    func connectionsPerIP() throws {
        let limit = 20
        try underAttack({ $0.maximumConnectionsPerAddress = limit }) { server in
            var crowd: [TestClient] = []
            for _ in 0..<limit {
                let client = try TestClient(connectingTo: server.address, source: "127.0.0.2")
                #expect(try client.handshake().status == 101)
                crowd.append(client)
            }
            for _ in 0..<5 {
                let extra = try TestClient(connectingTo: server.address, source: "127.0.0.2")
                try? extra.send(TestClient.upgradeRequest())
                // Closed without an answer.
                #expect((try? extra.readUntilEndOfStream()) == [])
            }
            #expect(server.server.statistics.snapshot["connections_rejected_per_address"] == 5)
            // Another address is not affected.
            let other = try TestClient(connectingTo: server.address, source: "127.0.0.3")
            #expect(try other.handshake().status == 101)
            // A slot freed is a slot to take again.
            try crowd[0].sendClose(code: 1000)
            #expect(try crowd[0].readCloseCode() == 1000)
            #expect(crowd[0].serverClosesConnection(within: 2))
            var admitted = false
            for _ in 0..<50 where !admitted {
                let again = try TestClient(connectingTo: server.address, source: "127.0.0.2")
                admitted = (try? again.handshake().status) == 101
                if admitted { crowd.append(again) } else { usleep(20_000) }
            }
            #expect(admitted)
            for client in crowd.dropFirst() { #expect(try client.echo(text: "ok") == "ok") }
        }
    }
}

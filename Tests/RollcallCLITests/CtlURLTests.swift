import HTTPClient
import Testing

@testable import RollcallCLI

/// How `rollcall ctl` reads `--url`: through the HTTP client's URL reader, so a name, `localhost`, an address and a
/// path prefix all work, and what the client cannot use is refused before anything is sent.
@Suite("ctl's --url", .serialized)
struct CtlURLTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080", "127.0.0.1", UInt16(8080), ""),
        ("http://localhost:9000/gateway/", "localhost", UInt16(9000), "/gateway"),
        ("http://[::1]:8080/a", "::1", UInt16(8080), "/a"),
        ("http://rollcall.internal", "rollcall.internal", UInt16(80), ""),
    ])
    func theURLGivesTheOriginAndThePrefix(text: String, host: String, port: UInt16, prefix: String) throws {
        let client = try BlockingHTTPClient(url: text)
        #expect(client.origin == HTTPOrigin(isSecure: false, host: host, port: port))
        #expect(client.basePath == prefix)
    }

    @Test(arguments: [
        ("https://127.0.0.1:8443", "is not an http:// URL (ctl speaks plain HTTP; the API has no TLS of its own)"),
        ("127.0.0.1:8080", "'127.0.0.1:8080' is not an http:// or https:// URL"),
        ("http://127.0.0.1:80800", "'http://127.0.0.1:80800': bad port"),
    ])
    func aURLTheClientCannotUseIsRefused(text: String, reason: String) {
        do {
            _ = try BlockingHTTPClient(url: text)
            Issue.record("'\(text)' was taken")
        } catch {
            #expect(error.description.hasPrefix("--url: "))
            #expect(error.description.hasSuffix(reason))
        }
    }

    @Test func localhostAndAPrefixReachTheGateway() throws {
        let harness = try OperationsHarness()
        defer { harness.stop() }
        let client = try BlockingHTTPClient(url: "http://localhost:\(harness.address.port)/v1/")
        let rooms = try client.send(
            "GET", "/api/rooms", headers: [("Authorization", "Bearer \(OperationsHarness.secret)")])
        #expect(rooms.status == 200)
        #expect(rooms.bodyText.hasPrefix("{"))
    }
}

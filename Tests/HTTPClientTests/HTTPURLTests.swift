import HTTPClient
import Testing

/// How a URL becomes the client's origin and request target, and which URLs it refuses.
@Suite struct HTTPURLTests {
    @Test(arguments: [
        ("http://127.0.0.1:9000/hooks", false, "127.0.0.1", UInt16(9000), "/hooks"),
        ("https://example.com/a?b=c", true, "example.com", UInt16(443), "/a?b=c"),
        ("http://[::1]:81", false, "::1", UInt16(81), "/"),
        ("http://localhost/prefix/", false, "localhost", UInt16(80), "/prefix/"),
    ])
    func urlsAreReadIntoSchemeHostPortAndPath(
        text: String, secure: Bool, host: String, port: UInt16, path: String
    )
        throws
    {
        let url = try HTTPURL(text)
        #expect(url.origin == HTTPOrigin(isSecure: secure, host: host, port: port))
        #expect(url.path == path)
    }

    @Test func theDescriptionLeavesOutTheSchemesDefaultPort() throws {
        #expect(try HTTPURL("https://example.com:443/a").description == "https://example.com/a")
        #expect(try HTTPURL("http://[::1]:8080").description == "http://[::1]:8080/")
    }

    @Test(arguments: [
        ("ftp://x/", "'ftp://x/' is not an http:// or https:// URL"),
        ("http://", "'http://': no host, or user info (not supported)"),
        ("http://user@host/", "'http://user@host/': no host, or user info (not supported)"),
        ("http://host:99999/", "'http://host:99999/': bad port"),
        ("http://[::1]x/", "'http://[::1]x/': bad port"),
        ("http://[::1/", "'http://[::1/': unclosed ["),
        ("http://host/a b", "'http://host/a b': the path holds spaces or control characters"),
    ])
    func badURLsAreRefusedWithTheReason(text: String, reason: String) {
        #expect(throws: HTTPURLError.self) { try HTTPURL(text) }
        do {
            _ = try HTTPURL(text)
        } catch {
            #expect(error.description == reason)
        }
    }
}

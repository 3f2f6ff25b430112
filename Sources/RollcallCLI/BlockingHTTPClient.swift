import EventIO
import HTTPClient

/// The blocking HTTP/1.1 client of `rollcall ctl`: one request per call (`Connection: close`), plain `http://`,
/// through `HTTPOriginClient` on an event loop that runs on the calling thread until the answer (or the failure)
/// arrives; a host name is resolved as the webhooks' are.
struct BlockingHTTPClient {
    /// A response: status, header fields and body.
    struct Response {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        var bodyText: String { String(decoding: self.body, as: UTF8.self) }
    }

    /// The server and the path prefix from the URL.
    let origin: HTTPOrigin
    let basePath: String
    /// Seconds the connect, and the whole exchange, may take.
    var timeoutSeconds = 10
    /// The largest response body read.
    static let maximumBodyBytes = 64 * 1024 * 1024

    /// - Parameter url: `http://HOST[:PORT][/prefix]`, HOST a name, an IPv4 address, `[IPv6]` or `localhost`.
    /// - Throws: `ConfigError` for a URL `HTTPURL` refuses, or an `https://` one.
    init(url: String) throws(ConfigError) {
        let parsed: HTTPURL
        do {
            parsed = try HTTPURL(url)
        } catch {
            throw ConfigError("--url: \(error.description)")
        }
        guard !parsed.origin.isSecure else {
            throw ConfigError(
                "--url: '\(url)' is not an http:// URL (ctl speaks plain HTTP; the API has no TLS of its own)")
        }
        self.origin = parsed.origin
        self.basePath = parsed.path.hasSuffix("/") ? String(parsed.path.dropLast()) : parsed.path
    }

    /// Sends one request and reads the whole response.
    ///
    /// - Parameters:
    ///   - method: `GET`, `HEAD` or `POST`.
    ///   - path: the path below the URL's prefix.
    ///   - headers: extra header fields.
    ///   - body: the body (sent with `Content-Length`), if any.
    func send(
        _ method: String,
        _ path: String,
        headers: [(name: String, value: String)] = [],
        body: [UInt8]? = nil
    ) throws(ConfigError) -> Response {
        var fields: [(name: String, value: String)] = [
            ("Connection", "close"), ("User-Agent", "rollcall-ctl"), ("Accept", "application/json"),
        ]
        fields += headers
        if body != nil { fields.append(("Content-Type", "application/json")) }
        let request = HTTPClientRequest(
            method: method, target: self.basePath + path, headers: fields, body: body ?? [])
        let loop: EventLoop
        do {
            loop = try EventLoop(index: -1, receiveBufferSize: 64 * 1024)
        } catch {
            throw ConfigError("cannot start an event loop: \(error)")
        }
        let resolver = HostResolver(loop: loop)
        let timeout = Int64(self.timeoutSeconds) * 1000
        let client = HTTPOriginClient(
            origin: self.origin, loop: loop, tlsContext: nil, resolver: resolver,
            configuration: HTTPClientConfiguration(
                timeoutMilliseconds: timeout, connectTimeoutMilliseconds: timeout,
                maximumResponseBodyBytes: Self.maximumBodyBytes, keepsResponseBody: true))
        var outcome: Result<HTTPClientResponse, HTTPClientError>?
        loop.execute {
            client.send(request) { result in
                outcome = result
                loop.stop()
            }
        }
        loop.run()
        client.close()
        resolver.stop()
        switch outcome {
        case .success(let response)?:
            let headers =
                response.head.map { head in
                    head.fields.map { field in
                        (
                            name: String(decoding: head.bytes[field.name], as: UTF8.self),
                            value: String(decoding: head.bytes[field.value], as: UTF8.self)
                        )
                    }
                } ?? []
            return Response(status: response.status, headers: headers, body: response.body)
        case .failure(let error)?:
            throw ConfigError(error.description)
        case nil:
            throw ConfigError("no answer from \(self.origin)")
        }
    }
}

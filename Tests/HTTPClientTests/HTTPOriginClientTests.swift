import ClusterTesting
import EventIO
import HTTPClient
import Testing

/// The HTTP/1.1 client against test servers: kept connections, bodies kept for the caller, and every way a request
/// fails, each with the message that names it.
@Suite(.serialized) struct HTTPOriginClientTests {
    /// A client of 127.0.0.1:`port` on the harness's loop.
    private static func client(
        _ harness: LoopHarness, port: Int, host: String = "127.0.0.1",
        configuration: HTTPClientConfiguration = HTTPClientConfiguration(keepsResponseBody: true)
    ) -> (HTTPOriginClient, HostResolver) {
        harness.onLoop {
            let resolver = HostResolver(loop: harness.loop)
            let client = HTTPOriginClient(
                origin: HTTPOrigin(isSecure: false, host: host, port: UInt16(port)), loop: harness.loop,
                tlsContext: nil, resolver: resolver, configuration: configuration)
            return (client, resolver)
        }
    }

    /// Sends `request` on the loop and waits for the outcome.
    private static func send(
        _ client: HTTPOriginClient, _ harness: LoopHarness,
        _ request: HTTPClientRequest = HTTPClientRequest(method: "GET", target: "/")
    ) -> Result<HTTPClientResponse, HTTPClientError>? {
        let box = ResultBox<Result<HTTPClientResponse, HTTPClientError>>()
        harness.loop.execute { client.send(request) { box.put($0) } }
        return box.wait(seconds: 15)
    }

    private static func failure(_ outcome: Result<HTTPClientResponse, HTTPClientError>?) -> String? {
        guard case .failure(let error)? = outcome else { return nil }
        return error.description
    }

    private static func body(_ outcome: Result<HTTPClientResponse, HTTPClientError>?) -> String? {
        guard case .success(let response)? = outcome else { return nil }
        return String(decoding: response.body, as: UTF8.self)
    }

    @Test func requestsShareOneKeptConnectionAndTheirBodiesAreKept() throws {
        let receiver = try WebhookReceiver { number in number == 1 ? .chunked(201) : .answer(200) }
        defer { receiver.close() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        let (client, resolver) = Self.client(harness, port: Int(receiver.port), host: "localhost")
        defer {
            harness.onLoop {
                client.close()
                resolver.stop()
            }
        }

        let first = Self.send(client, harness)
        let second = Self.send(client, harness)
        let third = Self.send(client, harness)

        #expect(Self.body(first) == "ok")
        #expect(Self.body(second) == "ok!!!")
        #expect(Self.body(third) == "ok")
        guard case .success(let chunked)? = second else { return }
        #expect(chunked.status == 201)
        #expect(chunked.head?.value(of: "Transfer-Encoding") == "chunked")
        #expect(receiver.connections == 1)
    }

    @Test func aServerThatStallsFailsTheRequestAtItsTimeout() throws {
        let receiver = try WebhookReceiver { _ in .stall(seconds: 3) }
        defer { receiver.close() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        let (client, resolver) = Self.client(
            harness, port: Int(receiver.port), configuration: HTTPClientConfiguration(timeoutMilliseconds: 200))
        defer {
            harness.onLoop {
                client.close()
                resolver.stop()
            }
        }

        guard case .failure(let error)? = Self.send(client, harness) else {
            Issue.record("a stalled request did not fail")
            return
        }
        #expect(error.description == "127.0.0.1:\(receiver.port) did not answer within 200 ms")
    }

    @Test func anAnswerCutShortFailsTheRequest() throws {
        let receiver = try WebhookReceiver { _ in .closeMidAnswer }
        defer { receiver.close() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        let (client, resolver) = Self.client(harness, port: Int(receiver.port))
        defer {
            harness.onLoop {
                client.close()
                resolver.stop()
            }
        }

        guard case .failure(let error)? = Self.send(client, harness) else {
            Issue.record("a cut answer did not fail")
            return
        }
        #expect(error.description == "the receiver closed in the middle of its answer")
    }

    @Test func aKeptBodyOverTheBoundFailsAndABodyUntilTheCloseIsReadToIt() throws {
        let server = try ScriptedServer { fd in
            guard ScriptedServer.read(fd, atLeast: 4).count >= 4 else { return }
            ScriptedServer.write(fd, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
        }
        defer { server.close() }
        let closing = try ScriptedServer { fd in
            guard ScriptedServer.read(fd, atLeast: 4).count >= 4 else { return }
            ScriptedServer.write(fd, "HTTP/1.1 200 OK\r\n\r\nuntil the end")
        }
        defer { closing.close() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        let bounded = HTTPClientConfiguration(maximumResponseBodyBytes: 10, keepsResponseBody: true)
        let (client, resolver) = Self.client(harness, port: server.port, configuration: bounded)
        var roomier = bounded
        roomier.maximumResponseBodyBytes = 64
        let (reader, otherResolver) = Self.client(harness, port: closing.port, configuration: roomier)
        defer {
            harness.onLoop {
                client.close()
                reader.close()
                resolver.stop()
                otherResolver.stop()
            }
        }

        guard case .failure(let error)? = Self.send(client, harness) else {
            Issue.record("a body over the bound was taken")
            return
        }
        #expect(error.description == "the answer's body is larger than 10 bytes")
        #expect(Self.body(Self.send(reader, harness)) == "until the end")
    }

    @Test func anAnswerToHEADHasNoBodyWhateverItsLengthSaysAndKeepsTheConnection() throws {
        let heads = ResultBox<[String]>()
        let server = try ScriptedServer { fd in
            let head = Self.readHead(fd)
            ScriptedServer.write(fd, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
            let get = Self.readHead(fd)
            ScriptedServer.write(fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            heads.put([head, get])
            _ = ScriptedServer.read(fd, atLeast: 1)
        }
        defer { server.close() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        let (client, resolver) = Self.client(
            harness, port: server.port,
            configuration: HTTPClientConfiguration(timeoutMilliseconds: 5_000, keepsResponseBody: true))
        defer {
            harness.onLoop {
                client.close()
                resolver.stop()
            }
        }

        let headOutcome = Self.send(client, harness, HTTPClientRequest(method: "HEAD", target: "/"))
        guard case .success(let answer)? = headOutcome else {
            Issue.record("the answer to HEAD failed: \(String(describing: headOutcome))")
            return
        }
        #expect(answer.status == 200)
        #expect(answer.body.isEmpty)
        #expect(answer.head?.value(of: "Content-Length") == "5")
        #expect(Self.body(Self.send(client, harness)) == "ok")
        #expect(server.acceptedCount == 1)
        #expect(
            heads.wait(seconds: 5) == [
                "HEAD / HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n",
                "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n",
            ])
    }

    /// Reads a request head that has no body, up to its blank line (the client sends one request at a time).
    private static func readHead(_ fd: Int32) -> String {
        var head: [UInt8] = []
        while !head.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) {
            let bytes = ScriptedServer.read(fd, atLeast: 1)
            guard !bytes.isEmpty else { break }
            head += bytes
        }
        return String(decoding: head, as: UTF8.self)
    }

    @Test func aRequestThatWouldBreakTheMessageFailsUnsent() throws {
        let server = try ScriptedServer { fd in _ = ScriptedServer.read(fd, atLeast: 1) }
        defer { server.close() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        let (client, resolver) = Self.client(harness, port: server.port)
        defer {
            harness.onLoop {
                client.close()
                resolver.stop()
            }
        }

        let injected = HTTPClientRequest(method: "GET", target: "/", headers: [("X-Name", "a\r\nX-Other: b")])
        let spaced = HTTPClientRequest(method: "GET", target: "/a b")
        let badName = HTTPClientRequest(method: "GET", target: "/", headers: [("X Name", "a")])
        let badMethod = HTTPClientRequest(method: "GET /x", target: "/")
        #expect(
            Self.failure(Self.send(client, harness, injected))
                == "the value of the header field 'X-Name' holds CR, LF or NUL")
        #expect(
            Self.failure(Self.send(client, harness, spaced)) == "the target '/a b' is empty or holds spaces or controls"
        )
        #expect(
            Self.failure(Self.send(client, harness, badName)) == "the header field name 'X Name' is not an HTTP token")
        #expect(Self.failure(Self.send(client, harness, badMethod)) == "the method 'GET /x' is not an HTTP token")
        #expect(server.acceptedCount == 0)
    }

    @Test func aServerThatIsNotThereFailsTheConnect() throws {
        let listener = try Socket.listen(on: SocketAddress(ipv4: "127.0.0.1", port: 0)!, reusePort: false)
        let port = try Socket.localAddress(of: listener).port
        Socket.close(listener)
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        let (client, resolver) = Self.client(harness, port: port)
        defer {
            harness.onLoop {
                client.close()
                resolver.stop()
            }
        }

        guard case .failure(let error)? = Self.send(client, harness) else {
            Issue.record("a request to nowhere was answered")
            return
        }
        #expect(error.description.hasPrefix("cannot connect to 127.0.0.1:\(port): connect failed: "))
    }
}

import HTTPCore
import TestSupport
import Testing

/// A parsed head reduced to plain values.
struct ParsedHead: Hashable, CustomStringConvertible {
    var method: String
    var target: String
    var version: String
    var fields: [[String]]
    var size: Int

    init(_ head: HTTPRequestHead) {
        self.method = head.method
        self.target = head.target
        self.version = head.version
        self.fields = head.fields.map { field in
            [
                String(decoding: head.bytes[field.name], as: UTF8.self),
                String(decoding: head.bytes[field.value], as: UTF8.self),
            ]
        }
        self.size = head.size
    }

    var description: String { "\(self.method) \(self.target) \(self.version) \(self.fields) (\(self.size) bytes)" }
}

/// A parse result reduced to plain values.
enum ParseOutcome: Hashable, CustomStringConvertible {
    case incomplete
    case complete(ParsedHead)
    case failure(Int)

    init(_ result: HTTPRequestParser.Result) {
        switch result {
        case .incomplete: self = .incomplete
        case .complete(let head): self = .complete(ParsedHead(head))
        case .failure(let status): self = .failure(status.code)
        }
    }

    var description: String {
        switch self {
        case .incomplete: return "incomplete"
        case .complete(let head): return "complete(\(head))"
        case .failure(let code): return "failure(\(code))"
        }
    }
}

/// Feeds growing prefixes of `bytes` to one parser, as reads arrive, until it stops answering `.incomplete`;
/// returns every answer.
func parseIncrementally(
    _ bytes: [UInt8],
    mode: FeedingMode,
    limits: HTTPRequestParser.Limits = .init()
) -> [ParseOutcome] {
    var parser = HTTPRequestParser(limits: limits)
    var received: [UInt8] = []
    var outcomes: [ParseOutcome] = []
    for read in mode.reads(of: bytes) {
        received += read
        let outcome = ParseOutcome(received.withUnsafeBytes { parser.parse($0) })
        outcomes.append(outcome)
        if outcome != .incomplete { break }
    }
    return outcomes
}

/// Expects every feeding mode to answer `.incomplete` until it reaches the same final answer as parsing whole;
/// returns that answer.
@discardableResult
func expectSameOutcomeInEveryFeedingMode(
    _ bytes: [UInt8],
    limits: HTTPRequestParser.Limits = .init(),
    sourceLocation: SourceLocation = #_sourceLocation
) -> ParseOutcome {
    let whole = ParseOutcome(parseWhole(bytes, limits: limits))
    for mode in allFeedingModes {
        let outcomes = parseIncrementally(bytes, mode: mode, limits: limits)
        #expect(outcomes.dropLast().allSatisfy { $0 == .incomplete }, "\(mode)", sourceLocation: sourceLocation)
        #expect(outcomes.last == whole, "\(mode)", sourceLocation: sourceLocation)
    }
    return whole
}

/// The feeding modes every head is checked in: whole, byte by byte, and random chunks from several seeds.
let allFeedingModes = FeedingMode.allModes(seeds: (1...6).map { 0x5EED_0000 + $0 })

/// A minimal request head with the given request line and fields.
func request(_ line: String = "GET / HTTP/1.1", _ fields: [String] = ["Host: a"]) -> [UInt8] {
    Array((([line] + fields).map { $0 + "\r\n" }.joined() + "\r\n").utf8)
}

@Suite struct HTTPRequestParserTests {
    @Test func parserReadsTheRFC6455SampleRequest() throws {
        let head = try #require(parseHead(sampleRequest))
        #expect(head.method == "GET")
        #expect(head.target == "/chat")
        #expect(head.version == "HTTP/1.1")
        #expect(head.path == "/chat")
        #expect(head.query == nil)
        #expect(head.size == sampleRequest.utf8.count)
        #expect(
            ParsedHead(head).fields == [
                ["Host", "server.example.com"],
                ["Upgrade", "websocket"],
                ["Connection", "Upgrade"],
                ["Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="],
                ["Origin", "http://example.com"],
                ["Sec-WebSocket-Protocol", "chat, superchat"],
                ["Sec-WebSocket-Version", "13"],
            ]
        )
    }

    @Test func parserGivesTheSameHeadHoweverTheBytesArrive() {
        let bytes = Array(sampleRequest.utf8)
        let outcome = expectSameOutcomeInEveryFeedingMode(bytes)
        guard case .complete(let head) = outcome else {
            Issue.record("expected a complete head, got \(outcome)")
            return
        }
        #expect(head.size == bytes.count)
        // Byte by byte, every prefix is incomplete and the last byte completes the head.
        let outcomes = parseIncrementally(bytes, mode: .byteByByte)
        #expect(outcomes.count == bytes.count)
    }

    @Test func everyProperPrefixIsIncomplete() {
        let bytes = Array(sampleRequest.utf8)
        for count in 0..<bytes.count {
            #expect(ParseOutcome(parseWhole(Array(bytes.prefix(count)))) == .incomplete, "\(count) bytes")
        }
    }

    @Test func headerNamesAreMatchedWithoutRegardToCase() throws {
        let head = try #require(parseHead("GET /x?y=1&z HTTP/1.1\r\nhOsT: a\r\nX-One: 1\r\nx-one: 2\r\n\r\n"))
        #expect(head.value(of: "Host") == "a")
        #expect(head.value(of: "HOST") == "a")
        #expect(head.values(of: "X-ONE") == ["1", "2"])
        #expect(head.count(of: "x-one") == 2)
        #expect(head.value(of: "Missing") == nil)
        #expect(head.path == "/x")
        #expect(head.query == "y=1&z")
        #expect(head.hasMethod("GET"))
        #expect(!head.hasMethod("get"))
    }

    @Test func fieldValuesLoseSurroundingWhitespaceOnly() throws {
        let head = try #require(parseHead("GET / HTTP/1.1\r\nHost: \t a b \t\r\nEmpty:\r\nTight:x\r\n\r\n"))
        #expect(head.value(of: "Host") == "a b")
        #expect(head.value(of: "Empty") == "")
        #expect(head.value(of: "Tight") == "x")
    }

    @Test func commaListTokensAreFoundWithoutRegardToCaseOrSpacing() throws {
        let head = try #require(
            parseHead(
                "GET / HTTP/1.1\r\nConnection: keep-alive, Upgrade\r\nUpgrade: WebSocket\r\n"
                    + "X-List: ,, a ,\tb\t,\r\nX-List: c\r\n\r\n"
            )
        )
        #expect(head.containsToken("upgrade", in: "connection"))
        #expect(head.containsToken("KEEP-ALIVE", in: "Connection"))
        #expect(head.containsToken("websocket", in: "Upgrade"))
        #expect(head.containsToken("b", in: "X-List"))
        #expect(head.containsToken("c", in: "x-list"))
        // Whole tokens only.
        #expect(!head.containsToken("upgrad", in: "Connection"))
        #expect(!head.containsToken("keep", in: "Connection"))
        #expect(!head.containsToken("upgrade", in: "Upgrade"))
        #expect(!head.containsToken("a b", in: "X-List"))
    }

    // MARK: Malformed heads

    @Test(arguments: [
        "GET / HTTP/1.1\r\nHost: a\r\nX: one\r\n  folded\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nX: one\r\n\tfolded\r\n\r\n",
        "GET / HTTP/1.1\r\n Host: a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\nX: b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost : a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost\t: a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\u{01}b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\u{7F}\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\u{00}\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n",
        "GET / HTTP/1.1\r\nHo\u{01}st: a\r\n\r\n",
        "GET / HTTP/1.1\r\n: a\r\n\r\n",
        "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
        "GET / HTTP/1.1\r\nX/Y: a\r\n\r\n",
        "GET  / HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /  HTTP/1.1\r\nHost: a\r\n\r\n",
        " GET / HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET / HTTP/1.1 \r\nHost: a\r\n\r\n",
        "GET /\u{01} HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET / http/1.1\r\nHost: a\r\n\r\n",
        "GET / HTTP/2.0\r\nHost: a\r\n\r\n",
        "GET / HTTP/1.10\r\nHost: a\r\n\r\n",
        "GET /\r\nHost: a\r\n\r\n",
        "GET\r\n\r\n",
        "\r\n\r\n",
        "GET / HTTP/1.1\nHost: a\r\n\r\n",
    ])
    func malformedHeadsAreRefusedWith400(text: String) {
        #expect(expectSameOutcomeInEveryFeedingMode(Array(text.utf8)) == .failure(400), "\(text.debugDescription)")
    }

    @Test func headWithBareLineFeedsOnlyIsRefusedWith400() {
        // Never valid: refused when the request line ends, not left waiting for a CRLF CRLF that will not come.
        let bytes = Array("GET / HTTP/1.1\nHost: a\n\n".utf8)
        #expect(ParseOutcome(parseWhole(bytes)) == .failure(400))
        #expect(ParseOutcome(parseWhole(Array("GET / HTTP/1.1\n".utf8))) == .failure(400))
        #expect(expectSameOutcomeInEveryFeedingMode(bytes) == .failure(400))
    }

    @Test func versionEndingInABareLineFeedIsRefusedHoweverTheBytesArrive() {
        // Found by fuzzing: "HTTP/1." followed by LF passed the version check (8 bytes, "HTTP/1." prefix) when the
        // head arrived whole, so a request line ending in a bare LF was accepted, yet refused when read in pieces.
        let bytes: [UInt8] = Array("GET / HTTP/1.\n\r\nHoxt: com\r\nqUttp://ex\"54\"\r\n\r\n".utf8)
        #expect(ParseOutcome(parseWhole(bytes)) == .failure(400))
        #expect(expectSameOutcomeInEveryFeedingMode(bytes) == .failure(400))
        #expect(ParseOutcome(parseWhole(request("GET / HTTP/1.x"))) == .failure(400))
    }

    // MARK: Limits

    @Test func overLongRequestLineIsRefusedWith414() {
        let limits = HTTPRequestParser.Limits(maximumRequestLineLength: 100, maximumHeadSize: 1000)
        // "GET /" + path + " HTTP/1.1" is exactly 100 bytes.
        let fits = request("GET /" + String(repeating: "a", count: 86) + " HTTP/1.1")
        guard case .complete = expectSameOutcomeInEveryFeedingMode(fits, limits: limits) else {
            Issue.record("a request line of exactly the limit must be accepted")
            return
        }
        let tooLong = request("GET /" + String(repeating: "a", count: 87) + " HTTP/1.1")
        #expect(expectSameOutcomeInEveryFeedingMode(tooLong, limits: limits) == .failure(414))

        // Refused without waiting for the end of the line.
        let endless = Array(("GET /" + String(repeating: "a", count: 500)).utf8)
        #expect(ParseOutcome(parseWhole(endless, limits: limits)) == .failure(414))
        #expect(parseIncrementally(endless, mode: .byteByByte, limits: limits).count == 102)
    }

    @Test func longMalformedRequestLineGets414HoweverTheBytesArrive() {
        // Found by fuzzing: a request line of 5578 bytes that is not a valid request line, then CRLF CRLF. Read in
        // pieces it was refused with 414 (too long to end within the limit); read whole, its syntax was checked
        // first and it got 400.
        let requestLine = [
            "Gx_window_bitsge-deflate;rver.uxamplssage-deflatpermessagezdeflateext_takeover; client_nermessagezde",
            "flateext_takeover; client_no_eover; client_no_context_takeover; server_max_window_bits=18; client_m,",
            "x_window_bitsge-deflateo_eover; client_no_conte server_max_window_bits=18; client_m,x_window_bitsge-",
            "deflate;t-deflate-frame, permesdeflatpermessagezdeflateext_message-deflatpermessagezdeflateext_takeo",
            "ver; clkent_no_eoveext_takeover; server_max_window_bits=18; client_m,x_window_bitsge-deflate;rver.ux",
            "amplssage-deflatpermessagezdeflatnt_no_context_takeover; server_max_window_bits=18; client_m,x_windo",
            "w_bitsge-deflate;t-deflate-frame, permesdeflatpermessagezdeflateext_message-deflatpermessagezdeflate",
            "ext_takeover; client_ver; client_no_context_takeover; server_max_window_bits=18; client_m,x_window_b",
            "itsge-deflate;rver.uxamplssage-deflatpermessagezdeflatnt_no_context_takeover; server_max_window_bits",
            "=18; client_m,x_window_bitsge-deflate;t-deflate-frame, permesdeflatpermesser; client_no_context_take",
            "over; server_max_window_bits=18; client_m,x_window_bitsge-deflate;rver.uxamplssage-deflatpermessagez",
            "deflateext_takeover; client_nermessagezdeflateext_takeover; client_no_eover; client_no_context_takeo",
            "ver; server_max_window_bits=18; client_m,x_window_bitsge-deflateo_eover; client_no_context_takeover;",
            " server_max_window_bits=18; client_m,x_window_bitsge-deflate;t-deflate-frame, permesdeflatpermessage",
            "zdeflateext_message-deflatpzermessagezdeflateext_takeover; client_no_eover; client_no_cont;rver.uxan",
            "t_no_context_takeover; server_max_window_bits=18; client_m,x_window_bitsge-deflate;t-deflate-frame, ",
            "permesdeflatpermesser; client_no_context_takeover; server_max_window_bits=18; client_m,x_window_bits",
            "ge-deflate;rver.uxamplssage-deflatpermessagezdeflateext_takeover; client_no_eover;m,x_window_bitsge-",
            "deflate;t-deflate-frame, permesdeflatpermesser; client_no_context_takeover; server_max_window_bits=1",
            "8; client_m,xxt_takeover; server_max_window_s=18; client_m,x_window_bitsge-deflate;t-deflate-frame, ",
            "permesdeflatpermesser; client_no_context_takeover; server_max_window_bits=18; client_m,x_window_bits",
            "ge-deflate;rver.uxamplssage-deflatpermessagezdeflateext_takeover; client_no_eover; client_no_context",
            "_takeover; server_max_window_bits=18; client_m,x_window_bitsge-deflate;t-deflate-frame, permesdeflat",
            "permessagezdeflateext_message-deflatpermessagezdeflateext_takeover; clkent_no_eoveext_takeover; serv",
            "er_max_window_bits=18; client_m,x_window_bitsge-deflate;rver.uxamplssage-deflatpermessagezdeflatnt_n",
            "o_context_takeover; server_max_window_bits=18; client_m,x_window_bitsge-deflate;t-deflate-frame, per",
            "mesdeflatpermessagezdeflateext_message-deflatpermessagezdeflateext_takeover; client_ver; client_no_c",
            "ontext_takeover; server_max_window_bits=18; client_m,x_window_bitsge-deflate;rver.uxamplssage-deflat",
            "permessagezdeflatnt_no_context_takeover; server_max_window_bits=18; client_m,x_window_bitsge-deflate",
            ";t-deflate-frame, permesdeflatpermesser; client_no_context_takeover; server_max_window_bits=18; clie",
            "nt_m,x_window_bitsge-deflate;rver.uxamplssage-deflatpermessagezdeflateext_takeover; client_nermessag",
            "ezdeflateext_takeover; client_no_eover; client_no_context_takeover; server_max_window_bits=18; clien",
            "t_m,x_window_bitsge-deflateo_eover; client_no_context_takeover; server_max_window_bits=18; client_m,",
            "x_window_bitsge-deflate;t-deflate-frame, permesdeflatpermessagezdeflateext_message-deflatpzermessage",
            "zdeflateext_takeover; client_no_eover; client_no_cont;rver.uxant_no_context_takeover; server_max_win",
            "dow_bits=18; client_m,x_window_bitsge-deflate;t-deflate-frame, permesdeflatpermesser; client_no_cont",
            "ext_takeover; server_max_window_bits=18; client_m,x_window_bitsge-deflate;rver.uxamplssage-deflatper",
            "messagezdeflateext_takeover; client_no_eover;m,x_window_bitsge-deflate;t-deflate-frame, permesdeflat",
            "permesser; client_no_context_takeover; server_max_window_bits=18; client_m,x_window_bitsge-deflate;r",
            "ver.uxamplssage-deflatpermessagezdeflateext_takeover; client_no_eover;_m,x_window_bitsge-deflate;rve",
            "r.uxamplssage-deflatpermessagezdeflateext_takeover; client_no_eover; client_no_context_takeover; ser",
            "ver_max_window_bits=18; client_m,x_window_bitsge-deflate;t-deflate-frame, permesdeflatpermessagezdef",
            "lateext_takeover; client_no_eover; client_no_context_takeover; server_max_window_bits=18; client_m,x",
            "_window_bitsge-deflate;rver.uxamplssage-deflatpermessagezdeflateext_takeover; cliesage-e; server_%%%",
            "%%%%%indow_indow_btakeover; client_no_eover; client_no_context_takeover_context_takeover; server_max",
            "_window_bits=18; client_m,x_window_bitsge-deflate;rver.uxamplssage-deflatpermessagezdeflateext_takeo",
            "ver; client_no_eover;m,x_window_bitsge-deflate;t-deflate-frame, permesdeflatpermesser; client_no_con",
            "text_takeover; server_max_window_bits=18; client_m,x_window_bitsge-deflate;rver.uxamplssage-deflatpe",
            "rmessagezdeflateext_takeover; client_no_eover;_m,x_window_bitsge-deflate;rver.uxamplssage-deflatperm",
            "essagezdeflateext_takeover; client_no_eover; client_no_context_takeover; server_max_window_bits=18; ",
            "client_m,x_window_bitsge-deflate;t-deflate-frame, permesdeflatpermessagezdeflateext_takeover; client",
            "_no_eover; client_no_context_takeover; server_max_window_bits=18; client_m,x_window_bitsge-deflate;r",
            "ver.uxamplssage-deflatpermessagezdeflateext_takeover; cliesage-e; server_%%%%%%%%indow_indow_btakeov",
            "er; client_no_eover; client_no_context_takeover; server_max_window_bits=18; client_m,x_window_bitsge",
            "-deflate;rver.uxamplssage-deflatpermessagezdeflateext_takeover; cliesage-e; server_%%%%%%%%indow_ind",
            "ow_bits=\"24t-deflate-frame, permessage-e; server_%%%%%%%%indow_indow_bits=\"24\"",
        ].joined()
        #expect(requestLine.utf8.count == 5578)
        let bytes = Array((requestLine + "\r\n\r\n").utf8)
        #expect(ParseOutcome(parseWhole(bytes)) == .failure(414))
        #expect(expectSameOutcomeInEveryFeedingMode(bytes) == .failure(414))
    }

    @Test func headOverTheSizeLimitIsRefusedWith431() {
        let limits = HTTPRequestParser.Limits(maximumRequestLineLength: 100, maximumHeadSize: 200)
        // 16 + 9 + 2 bytes around a value: pad the value so the head is exactly 200 bytes.
        let exact = request("GET / HTTP/1.1", ["Host: a", "X: " + String(repeating: "v", count: 200 - 16 - 9 - 5 - 2)])
        #expect(exact.count == 200)
        guard case .complete = expectSameOutcomeInEveryFeedingMode(exact, limits: limits) else {
            Issue.record("a head of exactly the limit must be accepted")
            return
        }
        let over = request("GET / HTTP/1.1", ["Host: a", "X: " + String(repeating: "v", count: 200 - 16 - 9 - 5 - 1)])
        #expect(over.count == 201)
        #expect(expectSameOutcomeInEveryFeedingMode(over, limits: limits) == .failure(431))

        // An endless header section is refused once the limit is reached.
        let endless = request("GET / HTTP/1.1", []).dropLast(2) + Array(repeating: UInt8(ascii: "x"), count: 1000)
        #expect(ParseOutcome(parseWhole(Array(endless), limits: limits)) == .failure(431))
        #expect(parseIncrementally(Array(endless), mode: .byteByByte, limits: limits).count == 200)
    }

    @Test func moreFieldsThanTheLimitAreRefusedWith431() {
        let limits = HTTPRequestParser.Limits(maximumHeaderCount: 4)
        let four = request("GET / HTTP/1.1", ["Host: a", "A: 1", "B: 2", "C: 3"])
        guard case .complete(let head) = expectSameOutcomeInEveryFeedingMode(four, limits: limits) else {
            Issue.record("four fields are within the limit")
            return
        }
        #expect(head.fields.count == 4)
        let five = request("GET / HTTP/1.1", ["Host: a", "A: 1", "B: 2", "C: 3", "D: 4"])
        #expect(expectSameOutcomeInEveryFeedingMode(five, limits: limits) == .failure(431))
    }
}

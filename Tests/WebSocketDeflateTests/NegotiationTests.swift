import Testing
import WebSocketCore
import WebSocketDeflate

@Suite struct NegotiationTests {
    private func negotiate(
        _ header: String,
        _ configuration: PerMessageDeflateConfiguration = PerMessageDeflateConfiguration()
    ) -> PerMessageDeflateParameters? {
        PerMessageDeflateNegotiator.negotiate(headerValue: header, configuration: configuration)
    }

    @Test func acceptsAPlainOfferWithDefaultWindows() throws {
        let parameters = try #require(self.negotiate("permessage-deflate"))
        #expect(parameters.responseHeaderValue == "permessage-deflate")
        #expect(parameters.serverMaxWindowBits == 15)
        #expect(parameters.clientMaxWindowBits == 15)
        #expect(!parameters.serverNoContextTakeover)
        #expect(!parameters.clientNoContextTakeover)
    }

    @Test func acceptsTheFirstOfTheRFCExampleOffers() throws {
        // RFC 7692 §5.2: the server supports server_max_window_bits, so the first offer is accepted.
        let parameters = try #require(
            self.negotiate(
                "permessage-deflate; client_max_window_bits; server_max_window_bits=10, "
                    + "permessage-deflate; client_max_window_bits"
            )
        )
        #expect(parameters.responseHeaderValue == "permessage-deflate; server_max_window_bits=10")
        #expect(parameters.serverMaxWindowBits == 10)
        #expect(parameters.clientMaxWindowBits == 15)
    }

    @Test func limitsAClientThatAnnouncedClientMaxWindowBits() throws {
        // RFC 7692 §7.1.2.2: a server may answer client_max_window_bits=N to a client that announced support.
        var configuration = PerMessageDeflateConfiguration()
        configuration.clientMaxWindowBits = 10
        let parameters = try #require(self.negotiate("permessage-deflate; client_max_window_bits", configuration))
        #expect(parameters.responseHeaderValue == "permessage-deflate; client_max_window_bits=10")
        #expect(parameters.clientMaxWindowBits == 10)
    }

    @Test func neverLimitsAClientThatDidNotAnnounceClientMaxWindowBits() throws {
        var configuration = PerMessageDeflateConfiguration()
        configuration.clientMaxWindowBits = 9
        let parameters = try #require(self.negotiate("permessage-deflate", configuration))
        #expect(parameters.responseHeaderValue == "permessage-deflate")
        #expect(parameters.clientMaxWindowBits == 15)
    }

    @Test func usesTheSmallerOfTheClientsAndTheConfiguredClientWindow() throws {
        var configuration = PerMessageDeflateConfiguration()
        configuration.clientMaxWindowBits = 12
        let smaller = try #require(self.negotiate("permessage-deflate; client_max_window_bits=9", configuration))
        #expect(smaller.clientMaxWindowBits == 9)
        #expect(smaller.responseHeaderValue == "permessage-deflate; client_max_window_bits=9")
        let larger = try #require(self.negotiate("permessage-deflate; client_max_window_bits=14", configuration))
        #expect(larger.clientMaxWindowBits == 12)
        #expect(larger.responseHeaderValue == "permessage-deflate; client_max_window_bits=12")
    }

    @Test func buildsTheFullResponseHeader() throws {
        var configuration = PerMessageDeflateConfiguration()
        configuration.serverNoContextTakeover = true
        configuration.clientMaxWindowBits = 12
        let parameters = try #require(self.negotiate("permessage-deflate; client_max_window_bits", configuration))
        #expect(
            parameters.responseHeaderValue
                == "permessage-deflate; server_no_context_takeover; client_max_window_bits=12"
        )
        #expect(parameters.serverNoContextTakeover)
    }

    @Test func honoursServerNoContextTakeoverRequestedByTheClient() throws {
        let parameters = try #require(self.negotiate("permessage-deflate; server_no_context_takeover"))
        #expect(parameters.serverNoContextTakeover)
        #expect(parameters.responseHeaderValue == "permessage-deflate; server_no_context_takeover")
    }

    @Test func confirmsClientNoContextTakeoverOfferedOrConfigured() throws {
        let offered = try #require(self.negotiate("permessage-deflate; client_no_context_takeover"))
        #expect(offered.clientNoContextTakeover)
        #expect(offered.responseHeaderValue == "permessage-deflate; client_no_context_takeover")

        var configuration = PerMessageDeflateConfiguration()
        configuration.clientNoContextTakeover = true
        let configured = try #require(self.negotiate("permessage-deflate", configuration))
        #expect(configured.clientNoContextTakeover)
        #expect(configured.responseHeaderValue == "permessage-deflate; client_no_context_takeover")
    }

    @Test func usesTheSmallerOfTheRequestedAndConfiguredServerWindow() throws {
        var configuration = PerMessageDeflateConfiguration()
        configuration.serverMaxWindowBits = 11
        let requested = try #require(self.negotiate("permessage-deflate; server_max_window_bits=13", configuration))
        #expect(requested.serverMaxWindowBits == 11)
        #expect(requested.responseHeaderValue == "permessage-deflate; server_max_window_bits=11")
        let smaller = try #require(self.negotiate("permessage-deflate; server_max_window_bits=9", configuration))
        #expect(smaller.serverMaxWindowBits == 9)
        #expect(smaller.responseHeaderValue == "permessage-deflate; server_max_window_bits=9")
        // RFC 7692 §7.1.2.1: the server may announce its smaller window even when the client did not ask.
        let unrequested = try #require(self.negotiate("permessage-deflate", configuration))
        #expect(unrequested.serverMaxWindowBits == 11)
        #expect(unrequested.responseHeaderValue == "permessage-deflate; server_max_window_bits=11")
    }

    @Test func honoursAnEightBitServerWindow() throws {
        let parameters = try #require(self.negotiate("permessage-deflate; server_max_window_bits=8"))
        #expect(parameters.serverMaxWindowBits == 8)
        #expect(parameters.responseHeaderValue == "permessage-deflate; server_max_window_bits=8")
    }

    @Test func acceptsQuotedWindowValues() throws {
        let parameters = try #require(
            self.negotiate("permessage-deflate; client_max_window_bits=\"10\"; server_max_window_bits=\"12\"")
        )
        #expect(parameters.clientMaxWindowBits == 10)
        #expect(parameters.serverMaxWindowBits == 12)
        #expect(
            parameters.responseHeaderValue
                == "permessage-deflate; server_max_window_bits=12; client_max_window_bits=10"
        )
    }

    @Test func declinesAnOfferAndAcceptsTheNext() throws {
        let parameters = try #require(
            self.negotiate("permessage-deflate; foo, permessage-deflate; server_no_context_takeover")
        )
        #expect(parameters.responseHeaderValue == "permessage-deflate; server_no_context_takeover")
    }

    @Test func skipsOtherExtensions() throws {
        let parameters = try #require(self.negotiate("x-webkit-deflate-frame; max_window_bits=8, permessage-deflate"))
        #expect(parameters.responseHeaderValue == "permessage-deflate")
        #expect(self.negotiate("x-webkit-deflate-frame, deflate-frame") == nil)
    }

    @Test(arguments: [
        "permessage-deflate; foo",
        "permessage-deflate; foo=1",
        "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
        "permessage-deflate; client_no_context_takeover; client_no_context_takeover",
        "permessage-deflate; server_max_window_bits=10; server_max_window_bits=10",
        "permessage-deflate; client_max_window_bits; client_max_window_bits=10",
        "permessage-deflate; server_no_context_takeover=1",
        "permessage-deflate; client_no_context_takeover=true",
        "permessage-deflate; server_no_context_takeover=\"x\"",
        "permessage-deflate; server_max_window_bits",
        "permessage-deflate; server_max_window_bits=7",
        "permessage-deflate; server_max_window_bits=16",
        "permessage-deflate; server_max_window_bits=08",
        "permessage-deflate; server_max_window_bits=+9",
        "permessage-deflate; server_max_window_bits=-9",
        "permessage-deflate; server_max_window_bits=abc",
        "permessage-deflate; server_max_window_bits=100",
        "permessage-deflate; server_max_window_bits=\"7\"",
        "permessage-deflate; client_max_window_bits=0",
        "permessage-deflate; client_max_window_bits=7",
        "permessage-deflate; client_max_window_bits=16",
        "permessage-deflate; client_max_window_bits=010",
        "permessage-deflate; client_max_window_bits=\"16\"",
    ])
    func declinesAnOfferWithAnInvalidParameter(header: String) {
        #expect(self.negotiate(header) == nil)
        // The same offer followed by a plain one: the plain one is accepted.
        #expect(self.negotiate(header + ", permessage-deflate")?.responseHeaderValue == "permessage-deflate")
    }

    @Test func acceptsNothingWhenDisabledOrMisconfigured() {
        #expect(self.negotiate("permessage-deflate", PerMessageDeflateConfiguration(isEnabled: false)) == nil)
        #expect(self.negotiate("permessage-deflate", PerMessageDeflateConfiguration(serverMaxWindowBits: 8)) == nil)
    }

    @Test func acceptsNothingFromAMalformedHeader() {
        #expect(self.negotiate("permessage-deflate; ") == nil)
        #expect(self.negotiate("permessage-deflate, ;") == nil)
    }

    @Test func boundsTheWorkOnHostileHeaders() {
        let manyOffers = Array(repeating: "permessage-deflate; foo", count: 100_000).joined(separator: ", ")
        #expect(self.negotiate(manyOffers) == nil)
        let bounded = Array(repeating: "permessage-deflate; foo", count: 31).joined(separator: ", ")
        #expect(self.negotiate(bounded + ", permessage-deflate")?.responseHeaderValue == "permessage-deflate")
        let longValue = "permessage-deflate; server_max_window_bits=" + String(repeating: "1", count: 1_000_000)
        #expect(self.negotiate(longValue) == nil)
    }

    @Test func carriesTheCompressionSettingsIntoTheParameters() throws {
        let configuration = PerMessageDeflateConfiguration(
            compressionLevel: 7,
            memoryLevel: 3,
            minimumCompressedMessageSize: 100
        )
        let parameters = try #require(self.negotiate("permessage-deflate", configuration))
        #expect(parameters.compressionLevel == 7)
        #expect(parameters.memoryLevel == 3)
        #expect(!parameters.shouldCompress(messageLength: 99))
        #expect(parameters.shouldCompress(messageLength: 100))
    }
}

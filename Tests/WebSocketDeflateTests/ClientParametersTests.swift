import Testing
import WebSocketCore
import WebSocketDeflate

/// The client's check of the server's answer to its permessage-deflate offer (RFC 7692 §7.1).
@Suite struct ClientParametersTests {
    private func validate(_ answer: String, offered: Bool = true) throws -> PerMessageDeflateClientParameters? {
        try PerMessageDeflateClientParameters.validate(responseHeaderValue: answer, offered: offered)
    }

    /// The message of the error the answer is refused with, or nil when it is accepted.
    private func refusal(_ answer: String, offered: Bool = true) -> String? {
        do throws(PerMessageDeflateResponseError) {
            _ = try PerMessageDeflateClientParameters.validate(responseHeaderValue: answer, offered: offered)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func readsAnEmptyAnswerAsDeclined() throws {
        #expect(try self.validate("") == nil)
        #expect(try self.validate(" , ") == nil)
        #expect(try self.validate("", offered: false) == nil)
    }

    @Test func acceptsAPlainAnswerWithDefaultWindows() throws {
        let agreed = try #require(try self.validate("permessage-deflate"))
        #expect(agreed == PerMessageDeflateClientParameters())
        #expect(agreed.serverMaxWindowBits == 15 && agreed.clientMaxWindowBits == 15)
        #expect(!agreed.serverNoContextTakeover && !agreed.clientNoContextTakeover)
    }

    @Test func readsEveryParameterWithoutRegardToCase() throws {
        let agreed = try #require(
            try self.validate(
                "Permessage-Deflate; server_no_context_takeover; CLIENT_NO_CONTEXT_TAKEOVER; "
                    + "server_max_window_bits=10; client_max_window_bits=9"
            )
        )
        #expect(agreed.serverNoContextTakeover)
        #expect(agreed.clientNoContextTakeover)
        #expect(agreed.serverMaxWindowBits == 10)
        #expect(agreed.clientMaxWindowBits == 9)
    }

    @Test func refusesAnExtensionThatWasNotOffered() {
        #expect(self.refusal("permessage-deflate", offered: false)?.contains("not offered") == true)
        #expect(self.refusal("x-webkit-deflate-frame")?.contains("not offered") == true)
        #expect(self.refusal("permessage-deflate, permessage-deflate")?.contains("not offered") == true)
    }

    @Test func refusesUnknownRepeatedAndMalformedParameters() {
        #expect(self.refusal("permessage-deflate; mystery")?.contains("unknown") == true)
        #expect(self.refusal("permessage-deflate; server_no_context_takeover=1")?.contains("takes no value") == true)
        #expect(self.refusal("permessage-deflate; client_no_context_takeover=x")?.contains("takes no value") == true)
        let repeated = "permessage-deflate; server_no_context_takeover; Server_No_Context_Takeover"
        #expect(self.refusal(repeated)?.contains("repeated") == true)
        #expect(self.refusal("permessage-deflate; server_max_window_bits=\"1")?.contains("malformed") == true)
    }

    @Test(arguments: ["7", "16", "08", "+9", "9a", "", "999"])
    func refusesAWindowSizeOutsideEightToFifteen(value: String) {
        let parameter = value.isEmpty ? "" : "=\(value)"
        for name in ["server_max_window_bits", "client_max_window_bits"] {
            #expect(self.refusal("permessage-deflate; \(name)\(parameter)") == "invalid \(name)")
        }
    }

    @Test func agreesWithWhatTheServerNegotiatesForTheOffer() throws {
        var configuration = PerMessageDeflateConfiguration()
        configuration.serverNoContextTakeover = true
        configuration.clientNoContextTakeover = true
        configuration.serverMaxWindowBits = 11
        configuration.clientMaxWindowBits = 10
        let server = try #require(
            PerMessageDeflateNegotiator.negotiate(
                headerValue: PerMessageDeflateClientParameters.offerHeaderValue,
                configuration: configuration
            )
        )
        let client = try #require(try self.validate(server.responseHeaderValue))
        #expect(client.serverNoContextTakeover == server.serverNoContextTakeover)
        #expect(client.clientNoContextTakeover == server.clientNoContextTakeover)
        #expect(client.serverMaxWindowBits == server.serverMaxWindowBits)
        #expect(client.clientMaxWindowBits == server.clientMaxWindowBits)
    }

    @Test func makesAnInflaterAndADeflaterThatMatchTheServersOwn() throws {
        let server = try #require(
            PerMessageDeflateNegotiator.negotiate(
                headerValue: PerMessageDeflateClientParameters.offerHeaderValue,
                configuration: PerMessageDeflateConfiguration(clientNoContextTakeover: true, serverMaxWindowBits: 10)
            )
        )
        let client = try #require(try self.validate(server.responseHeaderValue))
        let message = Array(repeating: Array("roster patch ".utf8), count: 40).flatMap { $0 }
        // Server to client: the server's deflater, the client's inflater.
        let serverDeflater = server.makeDeflater()
        let clientInflater = client.makeInflater()
        for _ in 0..<3 {
            let compressed = compress(message, with: serverDeflater)
            #expect(compressed.count < message.count)
            #expect(try decompress([compressed], with: clientInflater).get() == message)
        }
        // Client to server: without context takeover every message compresses to the same bytes.
        let clientDeflater = client.makeDeflater(compressionLevel: 1, memoryLevel: 6)
        let serverInflater = server.makeInflater()
        let first = compress(message, with: clientDeflater)
        let second = compress(message, with: clientDeflater)
        #expect(first == second)
        #expect(try decompress([first], with: serverInflater).get() == message)
        #expect(try decompress([second], with: serverInflater).get() == message)
    }
}

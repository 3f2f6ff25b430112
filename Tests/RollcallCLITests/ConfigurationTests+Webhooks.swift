import Testing

@testable import RollcallCLI

/// A webhook endpoint is configured as one block: a section of the file, `--set` keys or environment variables.
extension ConfigurationTests {
    static let endpointBlocks = """
        [storage]
        path = rollcall.db

        [webhooks.endpoint.crm]
        url = https://backend.example.com/rollcall/hooks
        secret = whsec-0123456789abcdef
        events = meeting.message, participant.joined
        rooms = team-*, standup

        [webhooks.endpoint.audit-log]
        url = http://10.0.0.5:9000/hooks
        secret = file-secret-of-16-bytes

        """

    @Test("an endpoint's block comes from a section of the file, --set keys and environment variables")
    func endpointBlocks() throws {
        let (configuration, loader) = try self.load(
            file: Self.endpointBlocks,
            environment: [
                "ROLLCALL_WEBHOOKS_ENDPOINT_AUDIT_LOG_SECRET": "environment-secret-16",
                "ROLLCALL_WEBHOOKS_ENDPOINT_BILLING_URL": "http://127.0.0.1:9/billing",
                "ROLLCALL_WEBHOOKS_ENDPOINT_BILLING_SECRET": "billing-secret-0123",
            ],
            overrides: [("webhooks.endpoint.crm.rooms", "standup")])
        let webhooks = try #require(try configuration.webhookConfiguration())
        #expect(webhooks.endpoints.map(\.name) == ["audit-log", "billing", "crm"])
        let audit = webhooks.endpoints[0]
        let billing = webhooks.endpoints[1]
        let crm = webhooks.endpoints[2]
        #expect(audit.secret == Array("environment-secret-16".utf8))
        #expect(audit.eventNames == nil && audit.roomPatterns == nil)
        #expect(billing.secret == Array("billing-secret-0123".utf8))
        #expect(crm.secret == Array("whsec-0123456789abcdef".utf8))
        #expect(crm.eventNames == ["meeting.message", "participant.joined"])
        #expect(crm.roomPatterns == ["standup"])
        #expect(loader.origins["webhooks.endpoint.crm.url"]?.hasSuffix(":7") == true)
        #expect(loader.origins["webhooks.endpoint.crm.rooms"] == "command line")
        #expect(loader.origins["webhooks.endpoint.audit-log.secret"] == "ROLLCALL_WEBHOOKS_ENDPOINT_AUDIT_LOG_SECRET")
        #expect(loader.origins["webhooks.endpoint.billing.url"] == "ROLLCALL_WEBHOOKS_ENDPOINT_BILLING_URL")

        let described = loader.describe(configuration)
        #expect(described.contains("webhooks.endpoint.crm.url = https://backend.example.com/rollcall/hooks  # "))
        #expect(described.contains("webhooks.endpoint.crm.secret = (secret)  # "))
        #expect(described.contains("webhooks.endpoint.crm.events = meeting.message, participant.joined  # "))
        #expect(!described.contains("whsec-") && !described.contains("environment-secret"))
        #expect(loader.warnings.isEmpty)
    }

    @Test("rollcall serve --help lists the keys of an endpoint's block")
    func endpointKeysAreListed() {
        let reference = ConfigurationLoader.reference
        for field in ["url", "secret", "events", "rooms"] {
            #expect(reference.contains("  webhooks.endpoint.NAME.\(field)\n"), "\(field)")
        }
        #expect(!reference.contains("webhooks.endpoints"))
    }

    @Test("an endpoint's block is refused without a URL or a secret, with a bad URL, name or key")
    func endpointBlocksAreChecked() {
        let store = ("storage.path", "rollcall.db")
        let url = ("webhooks.endpoint.crm.url", "https://hooks.example/in")
        let secret = ("webhooks.endpoint.crm.secret", "0123456789abcdef")
        #expect(
            self.refusal(overrides: [store, secret])?.contains("webhooks.endpoint.crm.url: the endpoint has no URL")
                == true)
        #expect(
            self.refusal(overrides: [store, url])?.contains(
                "webhooks.endpoint.crm.secret: the endpoint needs a signing secret")
                == true)
        #expect(
            self.refusal(overrides: [store, url, ("webhooks.endpoint.crm.secret", "short")])?
                .contains("at least 16 bytes") == true)
        #expect(
            self.refusal(overrides: [store, secret, ("webhooks.endpoint.crm.url", "ftp://hooks.example/in")])?
                .hasPrefix("webhooks.endpoint.crm.url: ") == true)
        #expect(
            self.refusal(overrides: [("webhooks.endpoint.c r m.url", "https://hooks.example/in")])?
                .contains("must be letters, digits, - and _ (from command line)") == true)
        #expect(
            self.refusal(overrides: [("webhooks.endpoint.crm.token", "x")])?
                .contains("unknown key; an endpoint's block webhooks.endpoint.NAME has url, secret, events, rooms")
                == true)
        #expect(self.refusal(overrides: [("webhooks.endpoint.url", "x")])?.contains("unknown key") == true)
    }

    @Test("the earlier lists keyed by endpoint name are refused with the blocks to write, and their empty lines warned")
    func earlierListsAreRefused() throws {
        let endpoints = self.refusal(
            overrides: [("webhooks.endpoints", "crm=https://hooks.example/in, audit=http://10.0.0.5:9000/hooks")])
        #expect(endpoints?.hasPrefix("webhooks.endpoints: the lists keyed by endpoint name are replaced") == true)
        #expect(endpoints?.contains("[webhooks.endpoint.crm] with url = https://hooks.example/in, and ") == true)
        #expect(endpoints?.contains("[webhooks.endpoint.audit] with url = http://10.0.0.5:9000/hooks") == true)
        #expect(endpoints?.hasSuffix("(from command line)") == true)

        let secrets = self.refusal(environment: ["ROLLCALL_WEBHOOKS_SECRETS": "crm:whsec-0123456789abcdef"])
        #expect(secrets?.contains("[webhooks.endpoint.crm] with secret = (its secret)") == true)
        #expect(secrets?.contains("whsec-") == false)
        #expect(secrets?.hasSuffix("(from ROLLCALL_WEBHOOKS_SECRETS)") == true)
        let events = self.refusal(file: "[webhooks]\nevents = crm=meeting.message|participant.left\n")
        #expect(events?.contains("[webhooks.endpoint.crm] with events = meeting.message, participant.left") == true)
        let rooms = self.refusal(overrides: [("webhooks.rooms", "crm=team-*|standup")])
        #expect(rooms?.contains("[webhooks.endpoint.crm] with rooms = team-*, standup") == true)

        let (configuration, loader) = try self.load(
            file: "[webhooks]\nendpoints =\nsecrets =\nevents =\nrooms =\nmax_batch = 50\n")
        #expect(configuration.webhooks.endpoints.isEmpty)
        #expect(configuration.webhooks.maximumBatch == 50)
        #expect(loader.warnings.count == 4)
        #expect(loader.warnings.first?.hasPrefix("webhooks.endpoints is no longer read") == true)
    }
}

import Testing

@testable import RollcallCLI

/// What `rollcall token --help` tells a developer.
@Suite struct TokenCommandTests {
    @Test func theHelpSaysTheIssuerAndAudienceComeFromTheConfiguration() {
        #expect(TokenCommand.help.contains("iss and aud"))
        #expect(TokenCommand.help.contains("auth.issuer") && TokenCommand.help.contains("auth.audience"))
    }
}

import Testing
import WebSocketDeflate

@Suite struct ConfigurationTests {
    @Test func defaultsAreValid() throws {
        let configuration = PerMessageDeflateConfiguration()
        try configuration.validate()
        #expect(configuration.isEnabled)
        #expect(configuration.serverMaxWindowBits == 15)
        #expect(configuration.clientMaxWindowBits == 15)
    }

    @Test func acceptsTheEdgesOfEveryRange() throws {
        try PerMessageDeflateConfiguration(
            serverMaxWindowBits: 9,
            clientMaxWindowBits: 8,
            compressionLevel: 0,
            memoryLevel: 1,
            minimumCompressedMessageSize: 0
        ).validate()
        try PerMessageDeflateConfiguration(
            serverMaxWindowBits: 15,
            clientMaxWindowBits: 15,
            compressionLevel: 9,
            memoryLevel: 9
        ).validate()
    }

    @Test(arguments: [
        (PerMessageDeflateConfiguration(serverMaxWindowBits: 8), "serverMaxWindowBits"),
        (PerMessageDeflateConfiguration(serverMaxWindowBits: 16), "serverMaxWindowBits"),
        (PerMessageDeflateConfiguration(clientMaxWindowBits: 7), "clientMaxWindowBits"),
        (PerMessageDeflateConfiguration(clientMaxWindowBits: 16), "clientMaxWindowBits"),
        (PerMessageDeflateConfiguration(compressionLevel: -1), "compressionLevel"),
        (PerMessageDeflateConfiguration(compressionLevel: 10), "compressionLevel"),
        (PerMessageDeflateConfiguration(memoryLevel: 0), "memoryLevel"),
        (PerMessageDeflateConfiguration(memoryLevel: 10), "memoryLevel"),
        (PerMessageDeflateConfiguration(minimumCompressedMessageSize: -1), "minimumCompressedMessageSize"),
    ])
    func rejectsAnOutOfRangeValueNamingTheField(configuration: PerMessageDeflateConfiguration, field: String) {
        #expect {
            try configuration.validate()
        } throws: { error in
            guard let error = error as? PerMessageDeflateConfigurationError else { return false }
            return error.field == field && error.description.contains(field)
        }
    }
}

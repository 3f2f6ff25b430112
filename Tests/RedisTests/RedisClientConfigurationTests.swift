import Testing

@testable import Redis

@Suite struct RedisClientConfigurationTests {
    @Test func aFullURLSetsEveryPart() throws {
        let configuration = try RedisClientConfiguration(url: "redis://app:p%40ss@10.0.0.5:6380/4")
        #expect(configuration.host == "10.0.0.5")
        #expect(configuration.port == 6380)
        #expect(configuration.username == "app")
        #expect(configuration.password == "p@ss")
        #expect(configuration.database == 4)
    }

    @Test func omittedPartsKeepTheDefaults() throws {
        let configuration = try RedisClientConfiguration(url: "redis://localhost")
        #expect(configuration.host == "localhost")
        #expect(configuration.port == 6379)
        #expect(configuration.username == nil)
        #expect(configuration.password == nil)
        #expect(configuration.database == 0)
        #expect(try RedisClientConfiguration(url: "redis://127.0.0.1:7000/").port == 7000)
    }

    @Test func aPasswordWithoutAUserAndAnIPv6HostAreRead() throws {
        let configuration = try RedisClientConfiguration(url: "REDIS://:secret@[::1]:6390/2")
        #expect(configuration.host == "::1")
        #expect(configuration.port == 6390)
        #expect(configuration.username == nil)
        #expect(configuration.password == "secret")
        #expect(configuration.database == 2)
    }

    @Test func badURLsAreRefusedNamingWhatIsWrong() {
        let cases: [(url: String, mentions: String)] = [
            ("http://127.0.0.1", "does not start with redis://"),
            ("rediss://127.0.0.1", "TLS"),
            ("redis://", "has no host"),
            ("redis://cache.internal:6379", "not an IP address or localhost"),
            ("redis://127.0.0.1:0", "port"),
            ("redis://127.0.0.1:70000", "port"),
            ("redis://127.0.0.1:+80", "port"),
            ("redis://127.0.0.1:", "port"),
            ("redis://127.0.0.1/x", "database"),
            ("redis://127.0.0.1/-1", "database"),
            ("redis://secret@127.0.0.1", "user:password"),
            ("redis://:bad%zz@127.0.0.1", "two hex digits"),
            ("redis://[::1", "closing ]"),
            ("redis://[nothost]:1", "not an IPv6 address"),
            ("redis://127.0.0.1/0?timeout=1", "queries"),
        ]
        for (url, mentions) in cases {
            #expect(throws: RedisError.self, "\(url)") { try RedisClientConfiguration(url: url) }
            do {
                _ = try RedisClientConfiguration(url: url)
            } catch {
                #expect(error.description.hasPrefix("invalid Redis URL: "), "\(url)")
                #expect(error.description.contains(mentions), "\(url): \(error)")
            }
        }
    }

    @Test func reconnectDelaysGrowFromTheInitialToTheMaximumWithJitter() {
        var configuration = RedisClientConfiguration()
        configuration.reconnectInitialDelayMilliseconds = 50
        configuration.reconnectMaximumDelayMilliseconds = 2_000
        for attempt in 0..<80 {
            let ceiling = min(50 * (Int64(1) << min(attempt, 20)), 2_000)
            for _ in 0..<20 {
                let delay = RedisClient.reconnectDelay(attempt: attempt, configuration: configuration)
                #expect(delay >= ceiling / 2 && delay <= ceiling, "attempt \(attempt): \(delay)")
            }
        }
    }
}

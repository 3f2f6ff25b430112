import EventIO
import Foundation
import Testing

@testable import RollcallCLI

/// The development key of the shipped configuration is public: the gateway refuses to listen beyond loopback with
/// it, unless `auth.allow_development_key` says this is a lab network.
@Suite("The development key beyond loopback")
struct DevelopmentKeyTests {
    /// The shipped `config/rollcall.conf`.
    static let shippedFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config/rollcall.conf").path

    /// The shipped configuration with `overrides`, loaded as `rollcall serve` loads it.
    static func shipped(_ overrides: [(String, String)]) throws -> RollcallConfiguration {
        var loader = ConfigurationLoader()
        return try loader.load(
            path: Self.shippedFile, environment: [:], overrides: [("storage.path", "")] + overrides)
    }

    /// Why the configuration is refused, or nil when it is not.
    static func refusal(_ overrides: [(String, String)]) throws -> String? {
        do {
            try Self.shipped(overrides).refuseDevelopmentKeyBeyondLoopback()
            return nil
        } catch {
            return String(describing: error)
        }
    }

    @Test("every interface, or any address beyond loopback, is refused with the key named and how to set one")
    func refusedBeyondLoopback() throws {
        for listen in ["0.0.0.0:8080", "[::]:8080", "192.168.1.20:8080", "127.0.0.1:8080, 10.0.0.1:8080"] {
            let reason = try #require(try Self.refusal([("server.listen", listen)]), "\(listen)")
            #expect(reason.contains("auth.keys"))
            #expect(reason.contains("'dev:rollcall-development-key-change-me'"))
            #expect(reason.contains("openssl rand -hex 32"))
            #expect(reason.contains("auth.allow_development_key"))
        }
        // The same public secret under another kid is the same key.
        #expect(
            try Self.refusal([
                ("server.listen", "0.0.0.0:8080"), ("auth.keys", "prod:rollcall-development-key-change-me"),
            ]) != nil)
    }

    @Test("serve and check-config stop with exit status 78 before anything listens")
    func exitStatus() {
        let arguments = ["--config", Self.shippedFile, "--listen", "0.0.0.0:0", "--set", "storage.path="]
        #expect(CommandRunner.run(["serve"] + arguments) == 78)
        #expect(CommandRunner.run(["check-config"] + arguments) == 78)
    }

    @Test("the opt-in allows it for a lab network")
    func optIn() throws {
        #expect(try Self.refusal([("server.listen", "0.0.0.0:8080"), ("auth.allow_development_key", "true")]) == nil)
        #expect(try Self.shipped([]).auth.allowsDevelopmentKeyBeyondLoopback == false)
    }

    @Test("loopback listeners keep the development key, and a key of one's own listens anywhere")
    func loopbackAndOwnKeys() throws {
        for listen in ["127.0.0.1:8080", "[::1]:8080", "127.0.0.2:9000", "[::ffff:127.0.0.1]:8080"] {
            #expect(try Self.refusal([("server.listen", listen)]) == nil, "\(listen)")
        }
        let ownKey = ("auth.keys", "main:0123456789abcdef0123456789abcdef")
        #expect(try Self.refusal([("server.listen", "0.0.0.0:8080"), ownKey]) == nil)
        #expect(try Self.shipped([ownKey]).auth.developmentKeyInUse == nil)
    }

    @Test("loopback addresses are 127.0.0.0/8, ::1 and IPv4 loopback mapped into IPv6")
    func loopbackAddresses() throws {
        for text in ["127.0.0.1:1", "127.255.0.9:1", "[::1]:1", "[::ffff:127.0.0.1]:1"] {
            #expect(try #require(SocketAddress(parsing: text)).isLoopback, "\(text)")
        }
        for text in ["0.0.0.0:1", "[::]:1", "10.1.2.3:1", "[::2]:1", "[::ffff:10.0.0.1]:1", "[fe80::1]:1"] {
            #expect(try !#require(SocketAddress(parsing: text)).isLoopback, "\(text)")
        }
    }
}

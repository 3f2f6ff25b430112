import ClusterTesting
import EventIO
import Foundation
import HTTPClient
import Rooms
import RoomsTesting
import Testing

@testable import Webhooks

/// Deliveries through the event-loop HTTP client to local receivers: TLS with a trusted self-signed certificate,
/// receivers that stall or close in the middle of an answer, and one kept connection for many deliveries.
@Suite(.serialized) struct WebhookDeliveryTests {
    /// A dispatcher for one endpoint `a` at `url`, reading an in-memory feed as node `node`.
    static func dispatcher(
        _ records: InMemoryWebhookRecords, url: String, node: String = "A", leaseMilliseconds: Int64 = 1_000,
        _ adjust: (inout WebhookConfiguration) -> Void = { _ in }
    ) throws -> WebhookDispatcher {
        let endpoint = WebhookEndpoint(name: "a", url: try HTTPURL(url), secret: Array("0123456789abcdef".utf8))
        var configuration = WebhookConfiguration(
            endpoints: [endpoint], maximumBatch: 10, timeoutMilliseconds: 2_000, retryBaseMilliseconds: 20,
            retryMaximumMilliseconds: 100)
        adjust(&configuration)
        return try WebhookDispatcher(configuration: configuration) { loop in
            InMemoryWebhookFeed(records: records, node: node, leaseMilliseconds: leaseMilliseconds) { loop.execute($0) }
        }
    }

    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "rollcall-hooks-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func aDeliveryOverHTTPSReachesAReceiverWhoseSelfSignedCertificateTheClientTrusts() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificate = try TLSSelfSignedCertificate.generate(in: directory)
        let receiver = try WebhookReceiver(certificate: certificate) { _ in .answer(200) }
        defer { receiver.close() }
        let records = InMemoryWebhookRecords()
        for _ in 0..<5 { records.append(room: "r") }
        let dispatcher = try Self.dispatcher(records, url: "https://localhost:\(receiver.port)/hooks") {
            $0.trustedCertificatesPath = certificate.certificatePath
        }
        try dispatcher.start()
        defer { dispatcher.stop() }
        #expect(waitUntil(seconds: 10) { records.cursor(of: "a")["r"] == 5 })
        #expect(receiver.events == ["r#1", "r#2", "r#3", "r#4", "r#5"])
        #expect(
            receiver.requests.first?.head.hasPrefix("POST /hooks HTTP/1.1\r\nHost: localhost:\(receiver.port)") == true)
        #expect(waitUntil(seconds: 10) { dispatcher.statistics[0].delivered.load(ordering: .relaxed) == 5 })
    }

    @Test func aReceiverWhoseCertificateIsNotTrustedOrNotForItsNameGetsNothing() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Trusted, but made out for another name only.
        let certificate = try TLSSelfSignedCertificate.generate(
            in: directory, commonName: "other.example", dnsNames: ["other.example"], ipAddresses: [])
        let receiver = try WebhookReceiver(certificate: certificate) { _ in .answer(200) }
        defer { receiver.close() }
        let records = InMemoryWebhookRecords()
        records.append(room: "r")
        for trusted in [certificate.certificatePath, nil] {
            let dispatcher = try Self.dispatcher(records, url: "https://localhost:\(receiver.port)/hooks") {
                $0.trustedCertificatesPath = trusted
            }
            try dispatcher.start()
            #expect(waitUntil(seconds: 10) { dispatcher.statistics[0].retried.load(ordering: .relaxed) >= 2 })
            dispatcher.stop()
        }
        #expect(receiver.requests.isEmpty)
        #expect(records.cursor(of: "a").isEmpty)
    }

    @Test func aReceiverThatStallsPastTheDeadlineIsRetriedWithoutWaitingForIt() throws {
        let receiver = try WebhookReceiver { number in number == 0 ? .stall(seconds: 4) : .answer(200) }
        defer { receiver.close() }
        let records = InMemoryWebhookRecords()
        for _ in 0..<3 { records.append(room: "r") }
        let dispatcher = try Self.dispatcher(records, url: "http://127.0.0.1:\(receiver.port)/") {
            $0.timeoutMilliseconds = 300
        }
        let started = Date()
        try dispatcher.start()
        defer { dispatcher.stop() }
        #expect(waitUntil(seconds: 10) { records.cursor(of: "a")["r"] == 3 })
        #expect(Date().timeIntervalSince(started) < 3.5)
        #expect(dispatcher.statistics[0].retried.load(ordering: .relaxed) >= 1)
        #expect(receiver.requests.count == 2)
        #expect(receiver.events == ["r#1", "r#2", "r#3", "r#1", "r#2", "r#3"])
    }

    @Test func aReceiverThatClosesInTheMiddleOfItsAnswerIsRetried() throws {
        let receiver = try WebhookReceiver { number in number == 0 ? .closeMidAnswer : .answer(200) }
        defer { receiver.close() }
        let records = InMemoryWebhookRecords()
        for _ in 0..<2 { records.append(room: "r") }
        let dispatcher = try Self.dispatcher(records, url: "http://127.0.0.1:\(receiver.port)/")
        try dispatcher.start()
        defer { dispatcher.stop() }
        #expect(waitUntil(seconds: 10) { records.cursor(of: "a")["r"] == 2 })
        #expect(dispatcher.statistics[0].retried.load(ordering: .relaxed) == 1)
        #expect(waitUntil(seconds: 10) { dispatcher.statistics[0].delivered.load(ordering: .relaxed) == 2 })
        #expect(receiver.requests.count == 2)
        #expect(receiver.connections == 2)
    }

    @Test func manyDeliveriesShareOneKeptConnection() throws {
        // Plain and chunked answers alternate: both leave the connection ready for the next request.
        let receiver = try WebhookReceiver { number in number % 2 == 0 ? .answer(200) : .chunked(204 - 4) }
        defer { receiver.close() }
        let records = InMemoryWebhookRecords()
        for index in 0..<20 { records.append(room: index % 2 == 0 ? "even" : "odd") }
        let dispatcher = try Self.dispatcher(records, url: "http://127.0.0.1:\(receiver.port)/") {
            $0.maximumBatch = 1
        }
        try dispatcher.start()
        defer { dispatcher.stop() }
        #expect(waitUntil(seconds: 10) { records.cursor(of: "a") == ["even": 10, "odd": 10] })
        #expect(receiver.requests.count == 20)
        #expect(receiver.connections == 1)
        #expect(Set(receiver.requests.map(\.connection)) == [1])
        #expect(dispatcher.statistics[0].connectionsOpened.load(ordering: .relaxed) == 1)
        #expect(dispatcher.statistics[0].retried.load(ordering: .relaxed) == 0)
    }

    @Test func anotherNodeTakesOverFromTheCursorOnceTheDeliveringNodesLeaseLapses() throws {
        let receiver = try WebhookReceiver { _ in .answer(200) }
        defer { receiver.close() }
        let records = InMemoryWebhookRecords()
        for index in 0..<10 { records.append(room: index % 2 == 0 ? "a" : "b") }
        let url = "http://127.0.0.1:\(receiver.port)/"
        let first = try Self.dispatcher(records, url: url, node: "A", leaseMilliseconds: 1_000)
        let second = try Self.dispatcher(records, url: url, node: "B", leaseMilliseconds: 1_000)
        try first.start()
        #expect(waitUntil(seconds: 10) { records.cursor(of: "a") == ["a": 5, "b": 5] })
        try second.start()
        defer { second.stop() }
        for index in 0..<6 { records.append(room: index % 2 == 0 ? "a" : "b") }
        #expect(waitUntil(seconds: 10) { records.cursor(of: "a") == ["a": 8, "b": 8] })
        #expect(records.leaseHolder(of: "a") == "A")
        // The delivering node dies: its loop stops, its lease stays until it lapses.
        first.stop()
        for index in 0..<6 { records.append(room: index % 2 == 0 ? "a" : "b") }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(records.cursor(of: "a") == ["a": 8, "b": 8])
        #expect(second.statistics[0].delivered.load(ordering: .relaxed) == 0)
        records.advanceClock(by: 1_001)
        #expect(waitUntil(seconds: 10) { records.cursor(of: "a") == ["a": 11, "b": 11] })
        #expect(records.leaseHolder(of: "a") == "B")
        #expect(waitUntil(seconds: 10) { second.statistics[0].delivered.load(ordering: .relaxed) == 6 })
        // Per room: every seq, in order (a duplicate may only repeat what came before).
        for room in ["a", "b"] {
            let seen = receiver.events.filter { $0.hasPrefix("\(room)#") }.map { Int($0.dropFirst(2))! }
            var next = 1
            for sequence in seen {
                #expect(sequence <= next)
                if sequence == next { next += 1 }
            }
            #expect(next == 12)
        }
    }

    @Test func aNodeThatLostTheLeaseStopsPostingItsBatch() throws {
        // A's receiver fails every delivery, so A keeps retrying its batch; B's acknowledges.
        let failing = try WebhookReceiver { _ in .answer(500) }
        defer { failing.close() }
        let working = try WebhookReceiver { _ in .answer(200) }
        defer { working.close() }
        let records = InMemoryWebhookRecords()
        for _ in 0..<3 { records.append(room: "r") }
        let first = try Self.dispatcher(records, url: "http://127.0.0.1:\(failing.port)/", node: "A")
        let second = try Self.dispatcher(records, url: "http://127.0.0.1:\(working.port)/", node: "B")
        try first.start()
        defer { first.stop() }
        #expect(waitUntil(seconds: 10) { failing.requests.count >= 3 })
        try second.start()
        defer { second.stop() }
        // A's lease lapses while it still retries (it renews only when it reads or moves the cursor).
        records.advanceClock(by: 1_001)
        #expect(waitUntil(seconds: 10) { records.cursor(of: "a")["r"] == 3 })
        #expect(records.leaseHolder(of: "a") == "B")
        let tries = failing.requests.count
        Thread.sleep(forTimeInterval: 0.3)
        #expect(failing.requests.count == tries)
        #expect(working.events == ["r#1", "r#2", "r#3"])
    }
}

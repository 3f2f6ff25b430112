import EventIO
import Foundation
import HTTPClient
import Rooms
import Storage
import Testing

@testable import Webhooks

/// Signing, filters, backoff and cursors of the webhooks.
@Suite struct WebhookTests {
    @Test func theSignatureIsHMACSHA256OfTheTimestampADotAndTheBody() throws {
        let body = Array(#"{"events":[]}"#.utf8)
        let header = WebhookSignature.header(body: body, secret: Array("secret".utf8), timestamp: 1_700_000_000)
        // echo -n '1700000000.{"events":[]}' | openssl dgst -sha256 -hmac secret
        #expect(header == "t=1700000000,v1=" + Self.opensslHMAC("1700000000.{\"events\":[]}", key: "secret"))
        #expect(WebhookSignature.verify(header: header, body: body, secret: Array("secret".utf8), now: 1_700_000_100))
    }

    @Test func aTamperedBodyAWrongSecretOrAStaleTimestampFailTheCheck() {
        let body = Array(#"{"events":[1]}"#.utf8)
        let secret = Array("0123456789abcdef".utf8)
        let header = WebhookSignature.header(body: body, secret: secret, timestamp: 1000)
        #expect(WebhookSignature.verify(header: header, body: body, secret: secret, now: 1000))
        #expect(
            !WebhookSignature.verify(header: header, body: Array(#"{"events":[2]}"#.utf8), secret: secret, now: 1000))
        #expect(
            !WebhookSignature.verify(header: header, body: body, secret: Array("another-secret-xx".utf8), now: 1000))
        #expect(!WebhookSignature.verify(header: header, body: body, secret: secret, now: 1000 + 301))
        #expect(!WebhookSignature.verify(header: "t=1000", body: body, secret: secret, now: 1000))
    }

    @Test func filtersSelectEventNamesAndRoomsByIdOrPrefix() throws {
        let endpoint = WebhookEndpoint(
            name: "a", url: try HTTPURL("http://127.0.0.1/"), secret: [1], eventNames: ["meeting.message"],
            roomPatterns: ["team-*", "standup"])
        #expect(endpoint.accepts(room: "team-7", eventName: "meeting.message"))
        #expect(endpoint.accepts(room: "standup", eventName: "meeting.message"))
        #expect(!endpoint.accepts(room: "standup-2", eventName: "meeting.message"))
        #expect(!endpoint.accepts(room: "team-7", eventName: "participant.joined"))
    }

    @Test func backoffIsFullJitterUnderADoublingCappedBound() throws {
        let configuration = WebhookConfiguration(
            endpoints: [], retryBaseMilliseconds: 100, retryMaximumMilliseconds: 1000)
        let loop = try EventLoop()
        let worker = WebhookWorker(
            endpoint: WebhookEndpoint(name: "a", url: try HTTPURL("http://127.0.0.1/"), secret: [1]),
            configuration: configuration, statistics: WebhookStatistics(endpoint: "a"),
            feed: SQLiteWebhookFeed(path: "", committedPosition: { 0 }, execute: { _ in }), client: nil, loop: loop,
            log: { _, _ in })
        for attempt in 0..<12 {
            let waits = (0..<50).map { _ in worker.backoff(attempt: attempt) }
            let bound = min(1000, 100 << Int64(attempt))
            #expect(waits.allSatisfy { $0 >= 0 && $0 <= bound })
        }
        #expect(Set((0..<50).map { _ in worker.backoff(attempt: 5) }).count > 1)
    }

    @Test func webhooksGetAnEntrysOwnWebhookMessageWhileHistoryKeepsTheSubscribersOne() throws {
        let path = NSTemporaryDirectory() + "rollcall-hooks-\(UUID().uuidString).db"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try SQLiteRoomStore(configuration: StorageConfiguration(path: path))
        let joined = RoomLogEntry(sequence: 1, time: 5, actor: nil, reason: nil, event: .lockChanged(isLocked: true))
        let ended = RoomLogEntry(sequence: 2, time: 6, actor: nil, reason: nil, event: .sessionEnded)
        store.append(
            StoredLogEntry(entry: joined, eventName: "room.lock_changed", message: Array("{}".utf8)), room: "r")
        store.append(
            StoredLogEntry(
                entry: ended, eventName: "session.ended", message: Array(#"{"seq":2}"#.utf8),
                webhookMessage: Array(#"{"seq":2,"attendance":[]}"#.utf8)), room: "r")
        try store.commit()
        let items = try SQLiteWebhookLog(path: path).items(after: 0, limit: 10)
        #expect(items.map { String(decoding: $0.message, as: UTF8.self) } == ["{}", #"{"seq":2,"attendance":[]}"#])
        let reopened = try SQLiteRoomStore(configuration: StorageConfiguration(path: path))
        let kept = try #require(try reopened.loadRoom("r", maximumEntries: 10))
        #expect(kept.entries.map { String(decoding: $0.message, as: UTF8.self) } == ["{}", #"{"seq":2}"#])
    }

    @Test func theCursorMovesWithTheDeliveredEntriesAndRecordsDeadLetters() throws {
        let path = NSTemporaryDirectory() + "rollcall-hooks-\(UUID().uuidString).db"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try SQLiteRoomStore(configuration: StorageConfiguration(path: path))
        for sequence in UInt64(1)...3 {
            let entry = RoomLogEntry(sequence: sequence, time: 5, actor: nil, reason: nil, event: .sessionEnded)
            store.append(StoredLogEntry(entry: entry, eventName: "session.ended", message: [0x7B, 0x7D]), room: "r")
        }
        try store.commit()
        #expect(store.committedPosition.current == 3)
        let log = try SQLiteWebhookLog(path: path)
        #expect(try log.position(of: "a") == 0)
        let items = try log.items(after: 0, limit: 2)
        #expect(items.map(\.sequence) == [1, 2])
        try log.advance("a", to: items[1].position, items: items, time: 9)
        #expect(try log.position(of: "a") == 2)
        #expect(try log.items(after: 2, limit: 10).map(\.sequence) == [3])
        let last = try log.items(after: 2, limit: 10)
        try log.advance("a", to: 3, items: last, deadLetterError: "status 500", time: 9)
        #expect(try log.oldestUndelivered(of: ["a", "b"]) == 1)
    }

    static func opensslHMAC(_ message: String, key: String) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import hmac,hashlib,sys; print(hmac.new(sys.argv[1].encode(), sys.argv[2].encode(), hashlib.sha256).hexdigest())",
            key, message,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try? process.run()
        process.waitUntilExit()
        return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

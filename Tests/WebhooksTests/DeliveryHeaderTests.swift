import ClusterTesting
import Foundation
import HTTPClient
import Rooms
import Storage
import Testing

@testable import Webhooks

/// The `Rollcall-Delivery` header of a delivery from the embedded store's feed: the endpoint, the first and the last
/// position read, each percent-encoded and separated by `/`, so it splits the same way whatever the endpoint's name
/// and the rooms' ids hold.
@Suite(.serialized) struct DeliveryHeaderTests {
    /// The value of header `name` in a request head.
    static func header(_ name: String, of request: WebhookReceiver.Request) -> String? {
        for line in request.head.split(separator: "\r\n") where line.lowercased().hasPrefix(name.lowercased() + ":") {
            return String(line.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// The three parts of a `Rollcall-Delivery` value, decoded.
    static func parts(of value: String) -> [String] {
        value.split(separator: "/", omittingEmptySubsequences: false).map {
            String($0).removingPercentEncoding ?? "(not percent-encoded)"
        }
    }

    @Test func theStoreFeedsHeaderSplitsIntoTheEndpointAndTheFirstAndLastPositionsWhateverTheRoomIDsHold() throws {
        let path = NSTemporaryDirectory() + "rollcall-delivery-\(UUID().uuidString).db"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try SQLiteRoomStore(configuration: StorageConfiguration(path: path))
        let rooms = ["team-a:1", "x-y:z-2"]
        for index in 0..<6 {
            let room = rooms[index % 2]
            let sequence = UInt64(index / 2 + 1)
            let entry = RoomLogEntry(sequence: sequence, time: 5, actor: nil, reason: nil, event: .sessionEnded)
            let message = Array(#"{"type":"event","room":"\#(room)","seq":\#(sequence)}"#.utf8)
            store.append(StoredLogEntry(entry: entry, eventName: "session.ended", message: message), room: room)
        }
        try store.commit()
        let receiver = try WebhookReceiver { _ in .answer(200) }
        defer { receiver.close() }
        let endpoint = WebhookEndpoint(
            name: "crm-eu", url: try HTTPURL("http://127.0.0.1:\(receiver.port)/hooks"),
            secret: Array("0123456789abcdef".utf8))
        let configuration = WebhookConfiguration(
            endpoints: [endpoint], maximumBatch: 4, timeoutMilliseconds: 2_000, retryBaseMilliseconds: 20,
            retryMaximumMilliseconds: 100)
        let dispatcher = try WebhookDispatcher(
            configuration: configuration, storePath: path,
            committedPosition: { [position = store.committedPosition] in position.current })
        try dispatcher.start()
        defer { dispatcher.stop() }
        #expect(waitUntil(seconds: 10) { receiver.events.count == 6 })
        #expect(receiver.requests.count == 2)
        var expectedFirst = 1
        for request in receiver.requests {
            let value = try #require(Self.header("Rollcall-Delivery", of: request))
            let parts = Self.parts(of: value)
            try #require(parts.count == 3, "\(value)")
            #expect(parts[0] == "crm-eu")
            // Positions in the store's log: the first event sent and the last entry read for the delivery.
            let events = try #require(
                (try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])?["events"]
                    as? [[String: Any]])
            #expect(parts[1] == String(expectedFirst))
            #expect(parts[2] == String(expectedFirst + events.count - 1))
            expectedFirst += events.count
        }
    }
}

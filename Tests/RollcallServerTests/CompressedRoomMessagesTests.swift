import Foundation
import JSONCoding
import Testing
import WebSocketTestSupport

@testable import RollcallServer

/// Reads messages up to and including the next roster patch; returns their texts (inflated where compressed).
private func readThroughNextPatch(_ client: RoomsClient) throws -> [[UInt8]] {
    var texts: [[UInt8]] = []
    for _ in 0..<100 {
        let text = try client.nextText()
        texts.append(text)
        if case .object(let message) = try JSONParser.parse(text), message["type"]?.stringValue == "patch" {
            return texts
        }
    }
    throw TestClientError("no patch among 100 messages")
}

@Suite("Room messages under permessage-deflate on a live server", .serialized)
struct CompressedRoomMessagesTests {
    @Test("Subscribers that agreed to compression get the same messages compressed, once per window size")
    func roomMessagesAreCompressedOncePerWindowSize() throws {
        try LiveRooms.with { live in
            let host = try live.client(live.token("host", rooms: ["call": .moderator]))
            #expect(try host.join("call")["type"]?.stringValue == "ack")
            let offers: [String?] = [
                nil,
                "permessage-deflate; client_max_window_bits",
                "permessage-deflate",
                "permessage-deflate; server_max_window_bits=10",
            ]
            var observers: [RoomsClient] = []
            for (index, offer) in offers.enumerated() {
                let token = try live.token("viewer-\(index)", rooms: ["call": .viewer])
                let observer = try live.client(token, compression: offer)
                #expect(try observer.join("call", as: "observer")["type"]?.stringValue == "ack")
                #expect(try observer.next()["type"]?.stringValue == "snapshot")
                observers.append(observer)
            }
            let before = live.runtime.inspect { live.runtime.compressionStatistics(of: $0) }
            let compressedBefore = observers.map(\.compressedMessages)

            let answer = try host.request([("type", "state"), ("room", "call"), ("handRaised", true)])
            #expect(answer["type"]?.stringValue == "ack")
            let received = try observers.map(readThroughNextPatch)
            let after = live.runtime.inspect { live.runtime.compressionStatistics(of: $0) }

            // Everyone reads the same messages, byte for byte.
            #expect(received.count == 4 && received.allSatisfy { $0 == received[0] })
            let compressible = received[0].filter { $0.count >= 64 }.count
            #expect(compressible >= 1)
            #expect(observers[0].compressedMessages == 0)
            for (observer, countBefore) in zip(observers, compressedBefore).dropFirst() {
                #expect(observer.compressedMessages - countBefore == compressible)
            }
            // Two window sizes among the subscribers (15 and 10): each message compressed twice, delivered thrice.
            #expect(after.messages - before.messages == 2 * compressible)
            #expect(after.deliveries - before.deliveries == 3 * compressible)
            #expect(after.bytesOut - before.bytesOut < after.bytesIn - before.bytesIn)
        }
    }

    @Test("A snapshot sent to several joiners while nothing changes is compressed once")
    func repeatedSnapshotsAreCompressedOnce() throws {
        try LiveRooms.with { live in
            // Enough participants for a snapshot of over a kilobyte, the size from which messages are kept for reuse.
            var participants: [RoomsClient] = []
            for index in 0..<12 {
                let participant = try live.client(live.token("p-\(index)", rooms: ["call": .participant]))
                #expect(try participant.join("call")["type"]?.stringValue == "ack")
                participants.append(participant)
            }
            var snapshots: [[UInt8]] = []
            var before: LoopTransport.CompressionStatistics?
            for index in 0..<4 {
                let observer = try live.client(
                    live.token("viewer-\(index)", rooms: ["call": .viewer]), compression: "permessage-deflate")
                #expect(try observer.join("call", as: "observer")["type"]?.stringValue == "ack")
                let ackWasCompressed = observer.compressedMessages
                snapshots.append(try observer.nextText())
                #expect(observer.compressedMessages == ackWasCompressed + 1)
                if before == nil { before = live.runtime.inspect { live.runtime.compressionStatistics(of: $0) } }
            }
            let after = live.runtime.inspect { live.runtime.compressionStatistics(of: $0) }
            let first = try #require(before)
            #expect(snapshots.allSatisfy { $0 == snapshots[0] })
            #expect(String(decoding: snapshots[0], as: UTF8.self).contains("\"type\":\"snapshot\""))
            #expect(snapshots[0].count >= 1024)
            // Each later joiner's welcome and ack are messages of their own, compressed when long enough; the
            // snapshot is not compressed again, only delivered.
            let answers = after.messages - first.messages
            #expect(answers <= 6)
            #expect(after.deliveries - first.deliveries == answers + 3)
            #expect(after.bytesIn - first.bytesIn < 3 * 1024)
        }
    }
}

import JSONCoding
import Testing

@testable import RollcallServer

@Suite("Handing the rooms thread's output to the connection loops", .serialized)
struct TransportHandOverTests {
    @Test("What the gateway sends in one iteration reaches a loop as one hand-over, in order, closes last")
    func oneIterationIsOneHandOverPerLoop() throws {
        try LiveRooms.with { live in
            var observers: [RoomsClient] = []
            for index in 0..<2 {
                let observer = try live.client(live.token("viewer-\(index)", rooms: ["standup": .viewer]))
                #expect(try observer.join("standup", as: "observer")["type"]?.stringValue == "ack")
                #expect(try observer.next()["type"]?.stringValue == "snapshot")
                observers.append(observer)
            }
            let before = live.runtime.inspect { _ in live.runtime.transportHandOvers }
            let published = live.runtime.inspect { gateway -> Int in
                var accepted = 0
                for index in 0..<5 {
                    let body: JSONValue = .object(
                        JSONObject(uniqueKeysWithValues: [
                            ("sessionId", "call-1"), ("text", .string("item \(index)")),
                        ]))
                    try? gateway.apiPublishMeeting(room: "standup", body: body, sender: "api:test") { result in
                        if case .success = result { accepted += 1 }
                    }
                }
                _ = gateway.apiDisconnect(uid: "viewer-0", reason: "done")
                return accepted
            }
            #expect(published == 5)
            // The five messages to two observers and the close: one task for the one loop.
            #expect(live.runtime.inspect { _ in live.runtime.transportHandOvers } == before + 1)
            for (index, observer) in observers.enumerated() {
                var texts: [String] = []
                while texts.count < 5 {
                    let message = try observer.next()
                    if message["event"]?.stringValue == "meeting.message" {
                        texts.append(message["data"]?["text"]?.stringValue ?? "")
                    }
                }
                #expect(texts == (0..<5).map { "item \($0)" })
                if index == 0 { #expect(try observer.client.readCloseCode() == 4009) }
            }
        }
    }
}

import JSONCoding
import TestSupport
import Testing

@testable import Rooms

/// The byte-scanning decoder of traffic messages agrees with the general decoder: whatever it decodes, the general
/// decoder decodes the same way, and whatever it leaves alone goes to the general decoder.
struct TrafficDecodingTests {
    static let decoder = ClientMessageDecoder(configuration: RoomsConfiguration())

    /// The general path's answer: the request, or nil when the message is refused.
    static func generalDecoding(_ text: String) -> ClientRequest? {
        guard let value = try? JSONParser.parse(text) else { return nil }
        return try? Self.decoder.decode(value)
    }

    static func fastDecoding(_ text: String) -> ClientRequest? {
        var text = text
        return text.withUTF8 { Self.decoder.decodeTraffic(UnsafeRawBufferPointer($0)) }
    }

    /// Checks that the fast path takes nothing the general path refuses or reads otherwise; returns whether it
    /// took the message.
    @discardableResult
    static func expectAgreement(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard let fast = Self.fastDecoding(text) else { return false }
        let general = Self.generalDecoding(text)
        #expect(
            general != nil, "the fast path took a message the general path refuses: \(text)",
            sourceLocation: sourceLocation)
        #expect(general?.message == fast.message, "\(text)", sourceLocation: sourceLocation)
        #expect(general?.id == fast.id, "\(text)", sourceLocation: sourceLocation)
        return true
    }

    @Test(
        "the usual state, speaker, media and meeting messages are decoded by scanning, as the general path reads them")
    func usualTrafficTakesTheFastPath() {
        let messages = [
            #"{"type":"state","id":1,"room":"r","audioMuted":true,"mid":"m1"}"#,
            #"{"type":"state","room":"r","videoPaused":false,"presenting":true,"handRaised":true}"#,
            #"{"type":"state","room":"r","cameraFacing":"back","id":"abc"}"#,
            #" { "room" : "r" , "type" : "state" , "audioMuted" : false } "#,
            "{\n\t\"type\":\"state\",\r\n\"room\":\"r\",\"mid\":\"x\"}",
            #"{"type":"speaker","room":"r","uid":"u-1"}"#,
            #"{"type":"speaker","room":"r","uid":null,"id":-9223372036854775808}"#,
            #"{"type":"media","room":"r","recording":true}"#,
            #"{"type":"media","room":"r","audioMode":"earpiece","uid":"u-2","id":9223372036854775807}"#,
            #"{"type":"meeting","group":"g","sessionId":"s"}"#,
            #"{"type":"meeting","group":"g","sessionId":"s","callType":"audio","active":false,"text":"hi there"}"#,
            #"{"type":"meeting","group":"g","sessionId":"s","active":true,"id":0}"#,
        ]
        for message in messages {
            #expect(Self.expectAgreement(message), "not taken by the fast path: \(message)")
        }
    }

    @Test("messages the general path refuses or that need its parser are left to it")
    func unusualMessagesAreLeftToTheGeneralPath() {
        let messages = [
            #"{"type":"state","room":"r"}"#,
            #"{"type":"state","room":"r","pinned":true}"#,
            #"{"type":"state","room":"r","audioMuted":1}"#,
            #"{"type":"state","room":"r","audioMuted":true,"audioMuted":false}"#,
            #"{"type":"state","room":"r","audioMuted":true,"extra":1}"#,
            #"{"type":"state","room":"r","audioMuted":true}x"#,
            #"{"type":"state","room":"r","audioMuted":true,}"#,
            #"{"type":"state","room":"r","audioMuted":true"#,
            #"{"type":"state","room":"r\u0041","audioMuted":true}"#,
            #"{"type":"state","room":"ré","audioMuted":true}"#,
            #"{"type":"state","room":"a b","audioMuted":true}"#,
            #"{"type":"state","room":"","audioMuted":true}"#,
            #"{"type":"state","room":"r","cameraFacing":"side"}"#,
            #"{"type":"state","room":"r","mid":null}"#,
            #"{"type":"state","id":1.0,"room":"r","audioMuted":true}"#,
            #"{"type":"state","id":-0,"room":"r","audioMuted":true}"#,
            #"{"type":"state","id":01,"room":"r","audioMuted":true}"#,
            #"{"type":"state","id":9223372036854775808,"room":"r","audioMuted":true}"#,
            #"{"type":"state","id":null,"room":"r","audioMuted":true}"#,
            #"{"type":"state","id":[1],"room":"r","audioMuted":true}"#,
            #"{"type":"speaker","room":"r"}"#,
            #"{"type":"media","room":"r"}"#,
            #"{"type":"media","room":"r","audioMode":"loud"}"#,
            #"{"type":"media","room":"r","recording":true,"uid":"u"}"#,
            #"{"type":"meeting","group":"g"}"#,
            #"{"type":"meeting","group":"g","sessionId":"s","text":null}"#,
            #"{"type":"meeting","group":"g","sessionId":"s","callType":"hologram"}"#,
            #"{"type":"join","room":"r"}"#,
            #"{"type":"ping"}"#,
            #"["state"]"#,
            "",
        ]
        for message in messages {
            #expect(Self.fastDecoding(message) == nil, "taken by the fast path: \(message)")
        }
    }

    @Test("ids and texts longer than the configured bounds are left to the general path")
    func boundsAreTheGeneralPaths() {
        let long = String(repeating: "a", count: 129)
        #expect(Self.fastDecoding(#"{"type":"state","room":"\#(long)","audioMuted":true}"#) == nil)
        #expect(Self.fastDecoding(#"{"type":"state","id":"\#(long)","room":"r","audioMuted":true}"#) == nil)
        let text = String(repeating: "t", count: 1025)
        #expect(Self.fastDecoding(#"{"type":"meeting","group":"g","sessionId":"s","text":"\#(text)"}"#) == nil)
        let fits = String(repeating: "t", count: 1024)
        #expect(Self.expectAgreement(#"{"type":"meeting","group":"g","sessionId":"s","text":"\#(fits)"}"#))
    }

    @Test("on random traffic messages the fast path agrees with the general path whenever it decodes")
    func randomMessagesAgree() {
        // Every name the scanner knows, the flags' from their definition, and a few it must not take.
        let names =
            TrafficMessageScanner.Member.ordered.map { "\($0.name)" } + ParticipantFlag.ordered.map(\.rawValue)
            + ["extra", "Room", "ro\\u006fm"]
        let values = [
            #""state""#, #""speaker""#, #""media""#, #""meeting""#, #""join""#, "true", "false", "null", "0", "-1",
            "42", "-0", "1.5", "1e3", "007", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
            #""r""#, #""u-1""#, #""""#, #""a b""#, #""é""#, #""\n""#, #""\u0072""#, #""front""#, #""back""#,
            #""audio""#, #""video""#, #""earpiece""#, #""speaker""#, "{}", "[]", #"{"a":1}"#, "tru", #""x"#,
            "\"\u{7F}\"", "\"\u{1}\"",
        ]
        let spaces = ["", " ", "\n", "\t", "\r\n", "  "]
        var generator = SplitMix64(seed: 17)
        func pick<T>(_ choices: [T]) -> T { choices[Int(generator.next() % UInt64(choices.count))] }
        var taken = 0
        for _ in 0..<20_000 {
            let type = pick(["state", "speaker", "media", "meeting"])
            var members = [#""type":"\#(type)""#]
            switch type {
            case "state": members.append(#""room":"r""#)
            case "meeting": members += [#""group":"g""#, #""sessionId":"s""#]
            default: members.append(#""room":"r""#)
            }
            for _ in 0..<Int(generator.next() % 4) {
                let value: String
                if generator.next() % 3 == 0 {
                    value = pick(values)
                } else {
                    // Mostly well-typed values, so that many messages are valid.
                    value = pick(["true", "false", #""u-1""#, #""front""#, #""earpiece""#, #""audio""#, "null", "3"])
                }
                members.append("\"\(pick(names))\"\(pick(spaces)):\(pick(spaces))\(value)")
            }
            if generator.next() % 8 == 0 { members.removeFirst() }
            for index in members.indices.reversed() where generator.next() % 2 == 0 {
                members.swapAt(index, Int(generator.next() % UInt64(index + 1)))
            }
            var text = pick(spaces) + "{" + members.map { pick(spaces) + $0 + pick(spaces) }.joined(separator: ",")
            text += "}" + pick(spaces)
            if generator.next() % 32 == 0 { text.removeLast() }
            if Self.expectAgreement(text) { taken += 1 }
        }
        #expect(taken > 1_000)
    }
}

import Testing
import WebSocketCore

@Suite struct ExtensionOfferParsingTests {
    typealias Offer = WebSocketExtensionOffer
    typealias Parameter = WebSocketExtensionOffer.Parameter

    @Test func parsesSeveralExtensionsWithParametersInOrder() {
        let offers = Offer.parse(
            "permessage-deflate; client_max_window_bits, permessage-deflate; server_max_window_bits=10"
        )
        #expect(
            offers == [
                Offer(name: "permessage-deflate", parameters: [Parameter(name: "client_max_window_bits")]),
                Offer(
                    name: "permessage-deflate",
                    parameters: [Parameter(name: "server_max_window_bits", value: "10")]
                ),
            ]
        )
    }

    @Test func acceptsOptionalWhitespaceAndEmptyListElements() {
        let offers = Offer.parse(" \t, foo ;\tbar = 1 ;baz ,, qux\t, ")
        #expect(
            offers == [
                Offer(name: "foo", parameters: [Parameter(name: "bar", value: "1"), Parameter(name: "baz")]),
                Offer(name: "qux"),
            ]
        )
    }

    @Test func returnsNoOffersForABlankValue() {
        #expect(Offer.parse("") == [])
        #expect(Offer.parse("  ,\t, ") == [])
    }

    @Test func unquotesAndUnescapesQuotedValues() {
        #expect(Offer.parse("a; b=\"10\"") == [Offer(name: "a", parameters: [Parameter(name: "b", value: "10")])])
        #expect(Offer.parse("a; b=\"1\\0\"") == [Offer(name: "a", parameters: [Parameter(name: "b", value: "10")])])
    }

    @Test func keepsDuplicateParametersForTheExtensionToJudge() {
        let offers = Offer.parse("a; b; b=2")
        #expect(offers?.first?.parameters == [Parameter(name: "b"), Parameter(name: "b", value: "2")])
    }

    @Test(arguments: [
        "a;", "a; ", ";a", "a=b", "a b", "a; b c", "a; b=", "a; b= ;c", "a; =1", "a; b=\"\"", "a; b=\"x y\"",
        "a; b=\"unterminated", "a; b=\"x\\", "a; b=\"x\\\"", "a; b=1=2", "a; b=\"1\"2", "a,;b", "é", "a; b=é",
        "a; b=\"1,2\"", "a\u{0}", "a;; b", "a; b=\"\\\u{1}\"",
    ])
    func rejectsMalformedSyntax(header: String) {
        #expect(Offer.parse(header) == nil)
    }

    @Test func acceptsUpToTheExtensionAndParameterBounds() {
        let extensions = Array(repeating: "x", count: Offer.maximumExtensionCount).joined(separator: ", ")
        #expect(Offer.parse(extensions)?.count == Offer.maximumExtensionCount)
        #expect(Offer.parse(extensions + ", x") == nil)

        let parameters = (0..<Offer.maximumParameterCount).map { "p\($0)=1" }.joined(separator: "; ")
        #expect(Offer.parse("x; " + parameters)?.first?.parameters.count == Offer.maximumParameterCount)
        #expect(Offer.parse("x; " + parameters + "; extra") == nil)
    }

    @Test func handlesHostileLongHeadersQuickly() {
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            #expect(Offer.parse(String(repeating: "a,", count: 500_000)) == nil)
            #expect(Offer.parse("a" + String(repeating: "; b", count: 500_000)) == nil)
            #expect(Offer.parse(String(repeating: ",", count: 1_000_000)) == [])
            #expect(Offer.parse(String(repeating: " ", count: 1_000_000)) == [])
            #expect(Offer.parse("a; b=\"" + String(repeating: "\\c", count: 500_000)) == nil)
            #expect(Offer.parse(String(repeating: "t", count: 1_000_000))?.first?.name.utf8.count == 1_000_000)
        }
        #expect(elapsed < .seconds(5))
    }
}

import Foundation
import Testing

@testable import RollcallClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLSession transport's mapping of messages, close codes and failures, without a socket (FoundationNetworking
/// on Linux has the same types as Apple's Foundation).
@Suite struct RollcallURLSessionTransportTests {
    @Test func textIsHandedOverAndBinaryIsDropped() {
        guard case .text(let text)? = RollcallURLSessionTransport.event(for: .string(#"{"type":"welcome"}"#)) else {
            Issue.record("text was not handed over")
            return
        }
        #expect(text == #"{"type":"welcome"}"#)
        #expect(RollcallURLSessionTransport.event(for: .data(Data([1, 2, 3]))) == nil)
    }

    @Test func theGatewaysOwnCloseCodesKeepTheirNumberSoFinalClosesStayFinal() {
        for code in [1000, 1001, 1008, 1011, 4001, 4002, 4003, 4004, 4005, 4008, 4009, 4010] {
            let info = RollcallURLSessionTransport.closeInfo(
                rawCode: code, reason: Data("why".utf8), initiatedLocally: false)
            #expect(
                info == RollcallCloseInfo(code: UInt16(code), reason: "why", wasClean: true, initiatedLocally: false))
        }
        let removed = RollcallURLSessionTransport.closeInfo(rawCode: 4003, reason: nil, initiatedLocally: false)
        #expect(RollcallError(.connectionClosed(code: removed.code, reason: removed.reason)).closeCode == 4003)
    }

    @Test func noCloseFrameIsADrop() {
        let invalid = URLSessionWebSocketTask.CloseCode.invalid.rawValue
        let info = RollcallURLSessionTransport.closeInfo(rawCode: invalid, reason: nil, initiatedLocally: false)
        #expect(info == RollcallCloseInfo(code: nil, reason: "", wasClean: false, initiatedLocally: false))
        #expect(RollcallURLSessionTransport.closeInfo(rawCode: 70_000, reason: nil, initiatedLocally: true).code == nil)
    }

    @Test func theClientsCloseCodesBecomeTheTasksNamedCodes() {
        #expect(RollcallURLSessionTransport.closeCode(for: 1000) == .normalClosure)
        #expect(RollcallURLSessionTransport.closeCode(for: 1001) == .goingAway)
        #expect(RollcallURLSessionTransport.closeCode(for: 1011) == .internalServerError)
    }

    @Test func aFailureCarriesThePlatformsDescription() {
        let error = NSError(
            domain: NSURLErrorDomain, code: -1002,
            userInfo: [NSLocalizedDescriptionKey: "WebSockets not supported by libcurl"])
        let failure = RollcallURLSessionTransport.failure(error)
        #expect(failure.description.contains("WebSockets not supported by libcurl"))
        #expect(failure.description.contains("-1002"))
    }

    @Test func aTaskThatCannotConnectReportsOneFailureAndNothingElse() async throws {
        let request = RollcallTransportRequest(endpoint: try RollcallEndpoint(url: "ws://127.0.0.1:9/v1/ws"))
        let transport = RollcallURLSessionTransport(request: request, connectTimeout: 5)
        let events = TransportEvents()
        transport.start { events.append($0) }
        let deadline = Date().addingTimeInterval(10)
        while events.all.isEmpty && Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(events.all.count == 1)
        guard case .failed(let error)? = events.all.first else {
            Issue.record("expected one failure, got \(events.all)")
            return
        }
        #expect(error.description.contains("URLSession"))
        #expect(throws: RollcallError.self) { try transport.send(text: "{}") }
    }
}

/// The events a transport reported, in order.
private final class TransportEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [RollcallTransportEvent] = []

    func append(_ event: RollcallTransportEvent) { self.lock.withLock { self.events.append(event) } }

    var all: [RollcallTransportEvent] { self.lock.withLock { self.events } }
}

import HTTPCore
import WebSocketCore
import WebSocketDeflate

/// Fuzzes the upgrade request path a connection runs on untrusted bytes: `HTTPRequestParser` fed in two reads,
/// then, for a complete head, handshake validation, extension offer parsing and permessage-deflate negotiation.
///
/// Input: byte 0 picks where the request is split into two reads; the rest is the request.
/// Invariants: a request read in two pieces parses exactly as when read whole; a complete head is a prefix of the
/// input and its field ranges lie inside it; an accepted offer list respects the parser's documented limits.

private let configurations = [
    PerMessageDeflateConfiguration(),
    PerMessageDeflateConfiguration(
        serverNoContextTakeover: true, clientNoContextTakeover: true, serverMaxWindowBits: 9, clientMaxWindowBits: 8
    ),
]

private func describe(_ result: HTTPRequestParser.Result) -> String {
    switch result {
    case .incomplete: return "incomplete"
    case .complete(let head): return "complete(\(head.size))"
    case .failure(let status): return "failure(\(status.code))"
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let request = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let split = request.count * Int(data[0]) / 255

    // As a connection reads it: the first read, then (if that was not enough) everything received.
    var parser = HTTPRequestParser()
    var result = request.withUnsafeBytes { parser.parse(UnsafeRawBufferPointer(rebasing: $0[..<split])) }
    if case .incomplete = result {
        result = request.withUnsafeBytes { parser.parse($0) }
    }
    var wholeParser = HTTPRequestParser()
    let whole = request.withUnsafeBytes { wholeParser.parse($0) }
    precondition(describe(result) == describe(whole), "split read: \(describe(result)), whole: \(describe(whole))")

    guard case .complete(let head) = result else { return 0 }
    precondition(head.size <= request.count && head.bytes[...] == request[..<head.size])
    for field in head.fields {
        precondition(field.name.lowerBound >= 0 && field.name.upperBound <= head.size)
        precondition(field.value.lowerBound >= 0 && field.value.upperBound <= head.size)
    }
    _ = (head.method, head.target, head.version, head.path, head.query)
    _ = WebSocketHandshake.isUpgradeRequest(head)
    switch WebSocketHandshake.validate(head) {
    case .failure(let rejection):
        _ = rejection.response
    case .success(let upgrade):
        _ = upgrade.selectProtocol(from: ["chat", "superchat"])
        _ = WebSocketHandshake.switchingProtocolsResponse(key: upgrade.key, subprotocol: nil, extensions: nil)
        if let offers = WebSocketExtensionOffer.parse(upgrade.extensions) {
            precondition(offers.count <= WebSocketExtensionOffer.maximumExtensionCount)
            for offer in offers {
                precondition(offer.parameters.count <= WebSocketExtensionOffer.maximumParameterCount)
            }
            for configuration in configurations {
                if let parameters = PerMessageDeflateNegotiator.negotiate(offers: offers, configuration: configuration)
                {
                    precondition((8...15).contains(parameters.clientMaxWindowBits))
                    precondition((8...15).contains(parameters.serverMaxWindowBits))
                    _ = parameters.responseHeaderValue
                    _ = parameters.makeInflater()
                }
            }
        }
    }
    return 0
}

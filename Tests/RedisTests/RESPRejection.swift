import Redis
import Testing

/// Bytes the parser must refuse, with the parser's limits, the kind of failure and the offset it must report.
struct RESPRejection: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let parser: RESPParser
    let kind: RESPProtocolError.Kind
    let offset: Int

    init(_ name: String, _ text: String, _ kind: RESPProtocolError.Kind, at offset: Int, parser: RESPParser = .init()) {
        self.name = name
        self.bytes = Array(resp: text)
        self.parser = parser
        self.kind = kind
        self.offset = offset
    }

    var testDescription: String { self.name }
}

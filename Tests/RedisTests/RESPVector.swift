import Redis
import Testing

/// A reply the parser must accept, and the value it must read from it.
struct RESPVector: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let value: RESPValue

    init(_ name: String, _ text: String, _ value: RESPValue) {
        self.init(name, Array(resp: text), value)
    }

    init(_ name: String, _ bytes: [UInt8], _ value: RESPValue) {
        self.name = name
        self.bytes = bytes
        self.value = value
    }

    var testDescription: String { self.name }
}

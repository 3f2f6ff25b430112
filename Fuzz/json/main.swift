import JSONCoding

/// Fuzzes `JSONParser.parse` with the default limits.
///
/// Invariants for accepted input: the writer's output is valid UTF-8 and parses back (with the same limits) to the
/// same value, doubles bit for bit (so `-0` stays `-0`), objects with their members in the same order.

/// Structural equality that is stricter than `==`: doubles compare by bit pattern and members by position.
private func identical(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): return true
    case (.bool(let a), .bool(let b)): return a == b
    case (.int(let a), .int(let b)): return a == b
    case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
    case (.string(let a), .string(let b)): return Array(a.unicodeScalars) == Array(b.unicodeScalars)
    case (.array(let a), .array(let b)):
        return a.count == b.count && zip(a, b).allSatisfy { identical($0, $1) }
    case (.object(let a), .object(let b)):
        let left = a.entries
        let right = b.entries
        return left.count == right.count
            && zip(left, right).allSatisfy { $0.key == $1.key && identical($0.value, $1.value) }
    default: return false
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let value = try? JSONParser.parse(input) else { return 0 }
    let written = JSONWriter.bytes(value)
    precondition(String(validating: written, as: UTF8.self) != nil, "the writer produced invalid UTF-8")
    let reparsed: JSONValue
    do {
        reparsed = try JSONParser.parse(written)
    } catch {
        preconditionFailure("the writer's output does not parse: \(error)")
    }
    precondition(reparsed == value, "round trip changed the value")
    precondition(identical(reparsed, value), "round trip changed a double, a string or the member order")
    precondition(JSONWriter.bytes(reparsed) == written, "writing is not deterministic")
    return 0
}

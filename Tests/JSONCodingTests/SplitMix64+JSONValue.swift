import JSONCoding
import TestSupport

extension SplitMix64 {
    /// A random value at most `depth` containers deep, using every case and the awkward corners of each.
    mutating func jsonValue(depth: Int) -> JSONValue {
        let choice = Int.random(in: 0..<(depth > 0 ? 8 : 6), using: &self)
        switch choice {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &self))
        case 2: return .int(self.int64())
        case 3: return .double(self.finiteDouble())
        case 4, 5: return .string(self.string())
        case 6:
            let count = Int.random(in: 0...6, using: &self)
            return .array((0..<count).map { _ in self.jsonValue(depth: depth - 1) })
        default:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0...12, using: &self) {
                object[self.string()] = self.jsonValue(depth: depth - 1)
            }
            return .object(object)
        }
    }

    /// An integer from the edges, the small range or anywhere.
    mutating func int64() -> Int64 {
        switch Int.random(in: 0..<4, using: &self) {
        case 0: return [Int64.min, Int64.max, 0, -1, 1][Int.random(in: 0..<5, using: &self)]
        case 1: return Int64.random(in: -1000...1000, using: &self)
        default: return Int64(bitPattern: self.next())
        }
    }

    /// A finite double: a random bit pattern, a small decimal or a whole number.
    mutating func finiteDouble() -> Double {
        switch Int.random(in: 0..<3, using: &self) {
        case 0:
            while true {
                let value = Double(bitPattern: self.next())
                if value.isFinite { return value }
            }
        case 1: return Double(Int.random(in: -100_000...100_000, using: &self)) / 100
        default: return Double(Int64.random(in: -(1 << 60)...(1 << 60), using: &self))
        }
    }

    /// A string mixing ASCII, characters that need escapes and scalars from every UTF-8 length.
    mutating func string() -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &self) {
            let value: UInt32
            switch Int.random(in: 0..<6, using: &self) {
            case 0: value = UInt32.random(in: 0..<0x20, using: &self)
            case 1: value = [0x22, 0x5C, 0x2F, 0x7F][Int.random(in: 0..<4, using: &self)]
            case 2: value = UInt32.random(in: 0x80..<0x800, using: &self)
            case 3: value = UInt32.random(in: 0xE000..<0x10000, using: &self)
            case 4: value = UInt32.random(in: 0x10000...0x10FFFF, using: &self)
            default: value = UInt32.random(in: 0x20..<0x7F, using: &self)
            }
            scalars.append(Unicode.Scalar(value)!)
        }
        return String(scalars)
    }
}

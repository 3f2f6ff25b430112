extension JSONScanner {
    /// Parses the number at the cursor: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    ///
    /// An integer without fraction or exponent that fits in `Int64` is exact; everything else, including `-0`
    /// (to keep its sign), goes through `Double`'s correctly rounded conversion.
    mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = self.position
        var index = start
        let negative = self.bytes[index] == UInt8(ascii: "-")
        if negative {
            index += 1
        }
        guard self.isDigit(at: index) else { throw JSONError(.missingDigit, at: index) }
        var magnitude: UInt64 = 0
        var overflow = false
        if self.bytes[index] == UInt8(ascii: "0") {
            index += 1
            guard !self.isDigit(at: index) else { throw JSONError(.leadingZero, at: index - 1) }
        } else {
            while self.isDigit(at: index) {
                let digit = UInt64(self.bytes[index] - UInt8(ascii: "0"))
                let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(digit)
                overflow = overflow || overflow1 || overflow2
                magnitude = sum
                index += 1
            }
        }
        var isInteger = true
        if index < self.bytes.count, self.bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            index = try self.skipDigits(from: index)
        }
        if index < self.bytes.count, self.bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if index < self.bytes.count,
                self.bytes[index] == UInt8(ascii: "+") || self.bytes[index] == UInt8(ascii: "-")
            {
                index += 1
            }
            index = try self.skipDigits(from: index)
        }
        self.position = index

        if isInteger && !overflow {
            if !negative && magnitude <= UInt64(Int64.max) {
                return .int(Int64(magnitude))
            }
            // `-0` is left to `Double`, which keeps the sign.
            if negative && magnitude != 0 && magnitude <= UInt64(Int64.max) + 1 {
                return .int(Int64(bitPattern: 0 &- magnitude))
            }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: self.bytes[start..<index]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else {
            throw JSONError(.numberOutOfRange, at: start)
        }
        return .double(double)
    }

    /// Skips one or more digits.
    ///
    /// - Returns: the offset of the first byte after them.
    func skipDigits(from start: Int) throws(JSONError) -> Int {
        guard self.isDigit(at: start) else { throw JSONError(.missingDigit, at: start) }
        var index = start + 1
        while self.isDigit(at: index) {
            index += 1
        }
        return index
    }

    @inline(__always)
    func isDigit(at index: Int) -> Bool {
        index < self.bytes.count && self.bytes[index] &- UInt8(ascii: "0") < 10
    }
}

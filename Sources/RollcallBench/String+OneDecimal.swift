extension String {
    /// A number with one decimal.
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = (tenths < 0 ? "-" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }
}

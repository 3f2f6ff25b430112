import Dispatch

/// Seconds on the monotonic clock, for deadlines that wall-clock changes cannot move.
enum MonotonicClock {
    static func now() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}

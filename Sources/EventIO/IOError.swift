#if canImport(Glibc)
internal import Glibc
#endif

/// A failed system call: its errno and which call it was.
public struct IOError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The `errno` value.
    public let errnoCode: Int32
    /// The failing call, e.g. `bind`.
    public let function: String

    /// - Parameters:
    ///   - errnoCode: the `errno` value.
    ///   - function: the failing call.
    public init(errnoCode: Int32, function: String) {
        self.errnoCode = errnoCode
        self.function = function
    }

    public var description: String {
        "\(self.function) failed: \(String(cString: strerror(self.errnoCode))) (errno \(self.errnoCode))"
    }
}

/// The result of a non-blocking call: a value, or "try again when the descriptor is ready".
public enum IOResult<Value: Sendable>: Sendable {
    case processed(Value)
    case wouldBlock
}

/// The one wrapper every system call goes through: retries on EINTR, reports EAGAIN as `.wouldBlock`, traps on
/// EBADF (a descriptor bug, never a runtime condition) and throws `IOError` for everything else.
@inline(__always)
func systemCall<T: FixedWidthInteger>(_ function: StaticString, _ body: () -> T) throws(IOError) -> IOResult<T> {
    while true {
        let result = body()
        if result >= 0 { return .processed(result) }
        let code = errno
        switch code {
        case EINTR: continue
        case EAGAIN: return .wouldBlock
        case EBADF: preconditionFailure("\(function) on a bad file descriptor")
        default: throw IOError(errnoCode: code, function: String(describing: function))
        }
    }
}

/// A system call that must not block; `.wouldBlock` is an error there.
@inline(__always)
@discardableResult
func blockingSystemCall<T: FixedWidthInteger>(_ function: StaticString, _ body: () -> T) throws(IOError) -> T {
    switch try systemCall(function, body) {
    case .processed(let value): return value
    case .wouldBlock: throw IOError(errnoCode: EAGAIN, function: String(describing: function))
    }
}

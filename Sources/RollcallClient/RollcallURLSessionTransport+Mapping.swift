import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How URLSession's messages, close codes and errors become the client's transport events: in one place, without a
/// socket, so the mapping is tested on every platform (on Linux, FoundationNetworking has the same types).
extension RollcallURLSessionTransport {
    /// What a received message means to the client: text is handed over; the protocol sends text only, so a binary
    /// message is dropped, as `RollcallConnection` drops it.
    ///
    /// - Parameters:
    ///   - message: the message the task received.
    /// - Returns: the event to report, or nil for nothing.
    static func event(for message: URLSessionWebSocketTask.Message) -> RollcallTransportEvent? {
        switch message {
        case .string(let text): return .text(text)
        case .data: return nil
        @unknown default: return nil
        }
    }

    /// How a connection ended, from the task's close code (its raw value, so the gateway's own codes 4001–4010,
    /// which `CloseCode` names no case for, keep their number) and reason.
    ///
    /// - Parameters:
    ///   - rawCode: the close code's raw value; 0 (`CloseCode.invalid`) when no Close frame came.
    ///   - reason: the reason bytes of the Close frame.
    ///   - initiatedLocally: whether the client started the close.
    /// - Returns: the close description; with a nil code when no Close frame came.
    static func closeInfo(rawCode: Int, reason: Data?, initiatedLocally: Bool) -> RollcallCloseInfo {
        let text = reason.map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard (1000...4999).contains(rawCode) else {
            return RollcallCloseInfo(code: nil, reason: text, wasClean: false, initiatedLocally: initiatedLocally)
        }
        return RollcallCloseInfo(
            code: UInt16(rawCode), reason: text, wasClean: true, initiatedLocally: initiatedLocally)
    }

    /// The task's close code for a code the client closes with. Apple's `CloseCode` takes any value, Linux's only
    /// the named ones: there an unnamed code becomes `normalClosure` (the client itself closes with 1000 only).
    ///
    /// - Parameters:
    ///   - code: the close code.
    static func closeCode(for code: UInt16) -> URLSessionWebSocketTask.CloseCode {
        URLSessionWebSocketTask.CloseCode(rawValue: Int(code)) ?? .normalClosure
    }

    /// The client's error for a task's failure, with the platform's own description.
    ///
    /// - Parameters:
    ///   - error: what URLSession reported.
    static func failure(_ error: any Error) -> RollcallError {
        let described = error as NSError
        let text = described.userInfo[NSLocalizedDescriptionKey] as? String ?? described.localizedDescription
        return RollcallError.transport("URLSession: \(text) (\(described.domain) \(described.code))")
    }
}

import EventIO
import HTTPCore
import Synchronization

/// Completes one HTTP request. It may be called from any thread: the response is handed to the connection's event
/// loop, which writes it and closes the connection. Only the first response counts; later calls are ignored, and
/// so is a response for a connection that timed out or closed meanwhile.
public final class HTTPResponder: Sendable {
    private let answered = Atomic<Bool>(false)
    private let deliver: UncheckedBox<([UInt8]) -> Void>

    init(deliver: @escaping ([UInt8]) -> Void) {
        self.deliver = UncheckedBox(deliver)
    }

    /// Whether a response was already given.
    public var hasResponded: Bool { self.answered.load(ordering: .acquiring) }

    /// Sends a complete, encoded HTTP response (see `HTTPResponse.encode`).
    ///
    /// - Parameter response: the response bytes, status line to body.
    public func respond(_ response: [UInt8]) {
        guard !self.answered.exchange(true, ordering: .acquiringAndReleasing) else { return }
        self.deliver.value(response)
    }

    /// Sends a response with a body.
    ///
    /// - Parameters:
    ///   - status: the status line.
    ///   - headers: extra header fields.
    ///   - body: the body bytes.
    ///   - contentType: the body's `Content-Type`.
    public func respond(
        status: HTTPStatus,
        headers: [(String, String)] = [],
        body: [UInt8],
        contentType: String = "text/plain; charset=utf-8"
    ) {
        self.respond(HTTPResponse.encode(status: status, headers: headers, body: body, contentType: contentType))
    }
}

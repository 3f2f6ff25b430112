/// What feeding an incremental head parser the bytes received so far gave (`HTTPRequestParser`,
/// `HTTPResponseParser`).
public enum HTTPHeadParseResult<Head: HTTPHead & Sendable, Failure: Sendable>: Sendable {
    /// The head is not complete yet.
    case incomplete
    /// The head is complete; the bytes after `head.size` belong to what follows (frames, after an upgrade).
    case complete(Head)
    /// The head is malformed or over a limit; the connection cannot go on.
    case failure(Failure)
}

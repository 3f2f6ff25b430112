/// The buffers one client loop's connections share for compressed messages, so that steady compressed traffic
/// reuses their capacity instead of allocating per message. Used on the loop's thread only.
///
/// A connection moves a buffer out while it uses it and puts it back afterwards, so a callback that sends or
/// receives on another connection meanwhile finds an empty buffer rather than one in use. Each buffer keeps the
/// capacity of the largest message it held: at most the bench's message limit (64 MiB) for `inflated`, and about
/// the largest message sent for the other two.
final class BenchCompressionBuffers {
    /// An outgoing message before compression.
    var message: [UInt8] = []
    /// An outgoing message after compression.
    var compressed: [UInt8] = []
    /// A received message after inflation.
    var inflated: [UInt8] = []
}

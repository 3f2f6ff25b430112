extension JSONParser {
    /// Bounds on the input and on the value it describes; a text that exceeds any of them is rejected.
    public struct Limits: Hashable, Sendable {
        /// The longest accepted input, in bytes.
        public var maxInputBytes: Int
        /// The deepest nesting of arrays and objects; a scalar at the top level is depth 0, `[]` is depth 1.
        public var maxDepth: Int
        /// The longest string or member name, in UTF-8 bytes after escapes are decoded.
        public var maxStringBytes: Int
        /// The most elements in one array, or members in one object.
        public var maxElementsPerContainer: Int
        /// The most values in the whole document, containers and scalars alike (member names not counted).
        public var maxTotalNodes: Int

        /// Limits for untrusted messages; every default suits a small control message on a WebSocket.
        ///
        /// - Parameters:
        ///   - maxInputBytes: the longest accepted input, in bytes (64 KiB by default).
        ///   - maxDepth: the deepest nesting of arrays and objects (16 by default).
        ///   - maxStringBytes: the longest decoded string, in UTF-8 bytes (16 KiB by default).
        ///   - maxElementsPerContainer: the most elements or members in one container (4,096 by default).
        ///   - maxTotalNodes: the most values in the document (16,384 by default).
        public init(
            maxInputBytes: Int = 64 * 1024,
            maxDepth: Int = 16,
            maxStringBytes: Int = 16 * 1024,
            maxElementsPerContainer: Int = 4096,
            maxTotalNodes: Int = 16_384
        ) {
            self.maxInputBytes = maxInputBytes
            self.maxDepth = maxDepth
            self.maxStringBytes = maxStringBytes
            self.maxElementsPerContainer = maxElementsPerContainer
            self.maxTotalNodes = maxTotalNodes
        }
    }
}

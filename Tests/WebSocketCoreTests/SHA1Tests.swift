import Testing
import WebSocketCore

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

private func sha1(_ bytes: [UInt8]) -> String {
    hex(bytes.withUnsafeBytes { SHA1.hash($0) })
}

@Suite struct SHA1Tests {
    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                + "mnopqrstnopqrstu",
            "a49b2446a02c645bf419f995b67091253a04a259"
        ),
        ("The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
    ])
    func hashMatchesTheFIPSVectors(message: String, digest: String) {
        #expect(sha1(Array(message.utf8)) == digest)
    }

    @Test func hashOfAMillionAsMatchesTheFIPSVector() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(sha1(message) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    /// Lengths around the padding boundaries (55, 56, 63, 64 bytes) against digests from a reference implementation.
    @Test(arguments: [
        (55, "c1c8bbdc22796e28c0e15163d20899b65621d65a"),
        (56, "c2db330f6083854c99d4b5bfb6e8f29f201be699"),
        (63, "03f09f5b158a7a8cdad920bddc29b81c18a551f5"),
        (64, "0098ba824b5c16427bd7a1122a5a442a25ec644d"),
        (65, "11655326c708d70319be2610e8a57d9a5b959d3b"),
    ])
    func hashHandlesLengthsAroundTheBlockBoundary(count: Int, digest: String) {
        #expect(sha1(Array(repeating: UInt8(ascii: "a"), count: count)) == digest)
    }

    @Test func hashOfAnEmptyBufferWithoutAnAddressIsTheEmptyDigest() {
        let digest = SHA1.hash(UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(hex(digest) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }

    @Test func acceptValueMatchesTheRFC6455Example() {
        let key = "dGhlIHNhbXBsZSBub25jZQ=="
        let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
        let digest = Array((key + guid).utf8).withUnsafeBytes { SHA1.hash($0) }
        #expect(digest.count == 20)
        #expect(Base64.encode(digest) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }
}

/// The browser client (`clients/js`) and the dashboard built on it, as committed in `clients/js/dist` and
/// `clients/dashboard`, embedded in the binary when it is built (SwiftPM's `embedInCode`): `rollcall serve`
/// serves them with no TypeScript compiler and no file beside the binary. `scripts/build-js-client.sh` rebuilds
/// the JavaScript and the list of files (`WebClientFiles+Embedded.swift`); `--check` tells whether the committed
/// output matches the sources.
public enum WebClientFiles {
    /// One embedded file.
    public struct File: Sendable {
        /// The file name, such as `rollcall.js`.
        public let name: String
        /// Its bytes.
        public let body: [UInt8]
        /// Its `Content-Type`.
        public let contentType: String
        /// A strong entity tag for its bytes, quoted, for `ETag` and `If-None-Match`.
        public let entityTag: String

        /// Describes a file; the content type comes from the name's extension, the entity tag from the bytes.
        ///
        /// - Parameters:
        ///   - name: the file name.
        ///   - body: its bytes.
        public init(name: String, body: [UInt8]) {
            self.name = name
            self.body = body
            self.contentType = Self.contentType(of: name)
            self.entityTag = "\"" + Self.fingerprint(body) + "\""
        }

        /// The content type for a file name: JavaScript modules, TypeScript declarations (as text), source maps,
        /// HTML.
        ///
        /// - Parameter name: the file name.
        public static func contentType(of name: String) -> String {
            if name.hasSuffix(".d.ts") { return "text/plain; charset=utf-8" }
            if name.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
            if name.hasSuffix(".html") { return "text/html; charset=utf-8" }
            if name.hasSuffix(".map") { return "application/json; charset=utf-8" }
            return "application/octet-stream"
        }

        /// FNV-1a (64-bit) of the bytes and their count, in hex: enough to tell two builds apart.
        static func fingerprint(_ bytes: [UInt8]) -> String {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
            let digits = String(hash, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits + "-" + String(bytes.count, radix: 16)
        }
    }

    /// The client module (`rollcall.js`, the modules it imports), its bundle (`rollcall.min.js` with its source map)
    /// and their declarations (`.d.ts`), by file name.
    public static let client: [String: File] = Self.index(Self.embeddedClient)

    /// The dashboard's scripts, by file name.
    public static let dashboardScripts: [String: File] = Self.index(Self.embeddedDashboard)

    /// The dashboard page. It names the rooms protocol's path in `<meta name="rollcall-rooms-path">`, which
    /// `dashboardPage(roomsPath:)` replaces.
    public static let dashboardPage = File(name: "dashboard.html", body: Self.embeddedDashboardPage)

    /// The dashboard page for a gateway whose rooms protocol is at `roomsPath`.
    ///
    /// - Parameter roomsPath: the WebSocket path of the rooms protocol, such as `/v1/ws`.
    public static func dashboardPage(roomsPath: String) -> File {
        let placeholder = "<meta name=\"rollcall-rooms-path\" content=\"/v1/ws\">"
        let escaped = roomsPath.replacingAll("&", with: "&amp;").replacingAll("\"", with: "&quot;")
            .replacingAll("<", with: "&lt;")
        let html = String(decoding: Self.embeddedDashboardPage, as: UTF8.self)
            .replacingAll(placeholder, with: "<meta name=\"rollcall-rooms-path\" content=\"\(escaped)\">")
        return File(name: "dashboard.html", body: Array(html.utf8))
    }

    private static func index(_ files: [(String, [UInt8])]) -> [String: File] {
        var result: [String: File] = [:]
        for (name, body) in files { result[name] = File(name: name, body: body) }
        return result
    }
}

extension String {
    /// The string with every occurrence of `target` replaced (Foundation-free).
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

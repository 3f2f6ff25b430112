import HTTPCore
import RollcallWebClient
import WebSocketServer

/// The browser client and the dashboard as HTTP routes of the gateway.
///
/// `/client/NAME` serves the client's ES modules and declarations (`/client/rollcall.js`, `/client/rollcall.d.ts`,
/// and the modules it imports) so a page imports the client from the gateway it talks to, from any origin (CORS).
/// Every file carries a strong `ETag` and `Cache-Control: no-cache`: a browser revalidates, and a matching
/// `If-None-Match` gets `304 Not Modified` without the body. `/dashboard` serves the dashboard page, and
/// `/dashboard/NAME` its scripts.
public enum WebClientRoutes {
    /// The route of the client's files, `/client/NAME`.
    public static var client: HTTPRoute {
        HTTPRoute(path: "/client", matchesSubpaths: true) { request, responder in
            let name = Self.fileName(request.path, under: "/client/")
            guard let file = name.flatMap({ WebClientFiles.client[$0] }) else {
                responder.respond(HTTPResponse.error(.notFound))
                return
            }
            responder.respond(
                Self.response(
                    file, request: request.head,
                    headers: [
                        ("Cache-Control", "no-cache"), ("Access-Control-Allow-Origin", "*"),
                        ("Cross-Origin-Resource-Policy", "cross-origin"), ("X-Content-Type-Options", "nosniff"),
                    ]))
        }
    }

    /// The dashboard's route: the page at `/dashboard`, its scripts at `/dashboard/NAME`.
    ///
    /// - Parameter roomsPath: the WebSocket path of the rooms protocol, written into the page.
    public static func dashboard(roomsPath: String) -> HTTPRoute {
        let page = WebClientFiles.dashboardPage(roomsPath: roomsPath)
        return HTTPRoute(path: "/dashboard", matchesSubpaths: true) { request, responder in
            if request.path == "/dashboard" || request.path == "/dashboard/" {
                responder.respond(
                    HTTPResponse.encode(
                        status: .ok,
                        headers: [
                            ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"),
                            ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"),
                        ],
                        body: page.body, contentType: page.contentType))
                return
            }
            let name = Self.fileName(request.path, under: "/dashboard/")
            guard let file = name.flatMap({ WebClientFiles.dashboardScripts[$0] }) else {
                responder.respond(HTTPResponse.error(.notFound))
                return
            }
            responder.respond(
                Self.response(
                    file, request: request.head,
                    headers: [("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff")]))
        }
    }

    /// The file name after `prefix`, when it is one plain name (no directory, nothing hidden).
    static func fileName(_ path: String, under prefix: String) -> String? {
        guard path.hasPrefix(prefix) else { return nil }
        let name = String(path.dropFirst(prefix.count))
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else { return nil }
        return name
    }

    /// A file's response: `304 Not Modified` when `If-None-Match` names its entity tag, the file otherwise.
    ///
    /// - Parameters:
    ///   - file: the file.
    ///   - request: the request head.
    ///   - headers: caching and security fields, sent with both answers.
    static func response(
        _ file: WebClientFiles.File, request: HTTPRequestHead, headers: [(String, String)]
    ) -> [UInt8] {
        let fields = [("ETag", file.entityTag)] + headers
        if Self.matches(request.values(of: "If-None-Match"), file.entityTag) {
            // No body and no Content-Length: a 304 describes the 200 it stands for (RFC 9110, 15.4.5).
            var head = "HTTP/1.1 304 Not Modified\r\nConnection: close\r\n"
            for (name, value) in fields { head += "\(name): \(value)\r\n" }
            return Array((head + "\r\n").utf8)
        }
        return HTTPResponse.encode(status: .ok, headers: fields, body: file.body, contentType: file.contentType)
    }

    /// Whether an `If-None-Match` field names `entityTag` (weak comparison, as RFC 9110 asks), or is `*`.
    static func matches(_ values: [String], _ entityTag: String) -> Bool {
        for value in values {
            for candidate in value.split(separator: ",") {
                var tag = candidate.trimmingSpaces
                if tag == "*" { return true }
                if tag.hasPrefix("W/") { tag = String(tag.dropFirst(2)) }
                if tag == entityTag { return true }
            }
        }
        return false
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(
            self.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed()
        )
    }
}

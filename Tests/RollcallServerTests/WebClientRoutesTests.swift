import RollcallWebClient
import Testing

@testable import RollcallServer

/// The browser client and the dashboard as the gateway embeds and serves them.
@Suite("Embedded browser client")
struct WebClientRoutesTests {
    @Test("the client module, its imports and declarations are embedded with their content types")
    func embeddedFiles() throws {
        let module = try #require(WebClientFiles.client["rollcall.js"])
        #expect(module.contentType == "text/javascript; charset=utf-8")
        #expect(String(decoding: module.body, as: UTF8.self).contains("export { Rollcall }"))
        #expect(WebClientFiles.client["rollcall.d.ts"]?.contentType == "text/plain; charset=utf-8")
        for (name, file) in WebClientFiles.client where name.hasSuffix(".js") {
            // Every relative import of the module resolves to an embedded file.
            let text = String(decoding: file.body, as: UTF8.self)
            for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.hasPrefix("export ") {
                guard let start = line.firstRange(of: "from \"./") else { continue }
                let imported = line[start.upperBound...].prefix { $0 != "\"" }
                #expect(WebClientFiles.client[String(imported)] != nil, "\(name) imports \(imported)")
            }
        }
        #expect(WebClientFiles.dashboardScripts["dashboard.js"] != nil)
    }

    @Test("the bundle is one module with no imports, its source map carries the sources, its declarations re-export")
    func embeddedBundle() throws {
        let bundle = try #require(WebClientFiles.client["rollcall.min.js"])
        #expect(bundle.contentType == "text/javascript; charset=utf-8")
        let text = String(decoding: bundle.body, as: UTF8.self)
        #expect(!text.contains("from\"./") && !text.contains("from \"./"), "the bundle imports nothing")
        #expect(text.hasSuffix("//# sourceMappingURL=rollcall.min.js.map\n"))
        #expect(text.contains("Rollcall"))
        let map = try #require(WebClientFiles.client["rollcall.min.js.map"])
        #expect(map.contentType == "application/json; charset=utf-8")
        let mapText = String(decoding: map.body, as: UTF8.self)
        #expect(mapText.contains("\"../src/client.ts\"") && mapText.contains("\"sourcesContent\""))
        let declarations = try #require(WebClientFiles.client["rollcall.min.d.ts"])
        #expect(String(decoding: declarations.body, as: UTF8.self).contains("export * from \"./rollcall.js\";"))
    }

    @Test("entity tags follow the bytes")
    func entityTags() {
        let one = WebClientFiles.File(name: "a.js", body: Array("one".utf8))
        #expect(one.entityTag == WebClientFiles.File(name: "b.js", body: Array("one".utf8)).entityTag)
        #expect(one.entityTag != WebClientFiles.File(name: "a.js", body: Array("two".utf8)).entityTag)
        #expect(one.entityTag.hasPrefix("\"") && one.entityTag.hasSuffix("\""))
    }

    @Test("If-None-Match matches a listed tag, a weak one, or *")
    func ifNoneMatch() {
        let tag = "\"abc-3\""
        #expect(WebClientRoutes.matches(["\"x\", \"abc-3\""], tag))
        #expect(WebClientRoutes.matches(["W/\"abc-3\""], tag))
        #expect(WebClientRoutes.matches(["*"], tag))
        #expect(!WebClientRoutes.matches(["\"abc-4\""], tag))
        #expect(!WebClientRoutes.matches([], tag))
    }

    @Test("only plain file names are served")
    func fileNames() {
        #expect(WebClientRoutes.fileName("/client/rollcall.js", under: "/client/") == "rollcall.js")
        #expect(WebClientRoutes.fileName("/client/", under: "/client/") == nil)
        #expect(WebClientRoutes.fileName("/client/../x", under: "/client/") == nil)
        #expect(WebClientRoutes.fileName("/client/a/b.js", under: "/client/") == nil)
    }

    @Test("the dashboard page names the configured rooms path")
    func dashboardPath() {
        let page = String(decoding: WebClientFiles.dashboardPage(roomsPath: "/rooms\"x").body, as: UTF8.self)
        #expect(page.contains("<meta name=\"rollcall-rooms-path\" content=\"/rooms&quot;x\">"))
        #expect(!page.contains("value=\"ey"))
    }
}

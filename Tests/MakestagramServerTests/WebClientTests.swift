import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MakestagramAPI
import MakestagramWeb
import ServerTestSupport
import Testing

@testable import MakestagramServer

@Suite struct WebClientTests {
    @Test(arguments: ["/", "/login", "/signup", "/new", "/search", "/activity", "/u/alice", "/p/42", "/t/golden_hour"])
    func everyPageOfTheAppAnswersWithTheClient(path: String) async throws {
        try await TestServer.run({ $0.maxUploadBytes = 1234 }) { client, _ in
            let response = try await client.executeRequest(uri: path, method: .get, headers: [:], body: nil)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'self'") == true)
            let page = String(buffer: response.body)
            #expect(page.contains(#"<script type="module" src="/app/main.js">"#))
        }
    }

    @Test func theClientGetsTheValuesItSharesWithTheServerFromTheServer() async throws {
        try await TestServer.run({ $0.maxUploadBytes = 1234 }) { client, _ in
            let module = try await client.executeRequest(
                uri: "/app/constants.js", method: .get, headers: [:], body: nil)
            #expect(module.headers[.contentType] == "text/javascript; charset=utf-8")
            let text = String(buffer: module.body)
            #expect(text.contains("maxUploadBytes: 1234"))
            for code in ProblemCode.allCases { #expect(text.contains("\"\(code.rawValue)\"")) }
            #expect(text.contains("resync: \(LiveCloseCode.resync)"))
            #expect(text.contains("likersPreview: \(Post.likersPreviewLimit)"))
        }
    }

    /// The client's modules import one another without a cycle: each depends only on modules below it, as the
    /// server's do, so any of them can be read (and loaded) from the bottom up.
    @Test func theClientsModulesImportNoCycle() throws {
        let files = try WebClient.files(maxUploadBytes: 1, heifBrands: [])
        var imports: [String: [String]] = [:]
        let pattern = try Regex(#"^import [^;]*? from "\./([a-z]+\.js)";"#).anchorsMatchLineEndings()
        for (name, data) in files where name.hasSuffix(".js") {
            let text = String(decoding: data, as: UTF8.self)
            imports[name] = text.matches(of: pattern).map { String(text[$0.output[1].range!]) }
        }
        #expect(imports["lists.js"]?.contains("feed.js") == false)
        var finished = Set<String>()
        func visit(_ module: String, path: [String]) {
            if path.contains(module) {
                Issue.record("import cycle: \((path + [module]).joined(separator: " → "))")
                return
            }
            guard finished.insert(module).inserted else { return }
            for next in imports[module] ?? [] { visit(next, path: path + [module]) }
        }
        for module in imports.keys.sorted() { visit(module, path: []) }
    }

    @Test func assetsHaveTheirTypeAndRevalidateByETag() async throws {
        try await TestServer.run { client, _ in
            let script = try await client.executeRequest(uri: "/app/main.js", method: .get, headers: [:], body: nil)
            #expect(script.status == .ok)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(script.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            let etag = try #require(script.headers[.eTag])
            let again = try await client.executeRequest(
                uri: "/app/main.js", method: .get, headers: [.ifNoneMatch: etag], body: nil)
            #expect(again.status == .notModified && again.body.readableBytes == 0)
            let style = try await client.executeRequest(uri: "/app/app.css", method: .get, headers: [:], body: nil)
            #expect(style.headers[.contentType] == "text/css; charset=utf-8")
            let icon = try await client.executeRequest(uri: "/favicon.ico", method: .get, headers: [:], body: nil)
            #expect(icon.headers[.contentType] == "image/svg+xml")
        }
    }

    @Test(arguments: ["/app/missing.js", "/app/../Package.swift", "/p/abc/def", "/nowhere"])
    func unknownFilesAreProblemsNotPages(path: String) async throws {
        try await TestServer.run { client, _ in
            let problem = try await client.problem(.get, path)
            #expect(problem.status == 404)
        }
    }

    /// A mistyped link in a browser gets the app, which says "Page not found" and leads on, with status 404; the API,
    /// files and clients that do not ask for HTML keep getting problems.
    @Test func aBrowserAskingForAnUnknownPageGetsTheAppWithA404() async throws {
        try await TestServer.run { client, _ in
            let html: HTTPFields = [.accept: "text/html,application/xhtml+xml,*/*;q=0.8"]
            let page = try await client.executeRequest(uri: "/no/such/page", method: .get, headers: html, body: nil)
            #expect(page.status == .notFound)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.contentSecurityPolicy]?.contains("default-src 'self'") == true)
            #expect(String(buffer: page.body).contains(#"src="/app/main.js""#))
            for path in ["/api/v1/nothing", "/media/nothing.jpg", "/app/nothing.js"] {
                let answer = try await client.executeRequest(uri: path, method: .get, headers: html, body: nil)
                #expect(answer.status == .notFound && answer.headers[.contentType] == "application/problem+json")
            }
            let posted = try await client.executeRequest(uri: "/no/such/page", method: .post, headers: html, body: nil)
            #expect(posted.headers[.contentType] == "application/problem+json")
        }
    }
}

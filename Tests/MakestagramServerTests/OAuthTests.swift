import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import MakestagramAPI
import NIOCore
import ServerTestSupport
import Testing

@testable import MakestagramServer

/// The OAuth 2 authorization server and scopes: what an app registered here can and cannot get, and that every
/// route refuses a token without the scope it needs.
@Suite struct OAuthTests {
    struct App {
        var clientID: String
        var secret: String
    }

    static func form(_ fields: [(String, String)]) -> ByteBuffer {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return ByteBuffer(
            string: fields.map {
                "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
            }.joined(separator: "&"))
    }

    static func post(_ client: any TestClientProtocol, _ path: String, _ fields: [(String, String)]) async throws
        -> TestResponse
    {
        try await client.executeRequest(
            uri: path, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
            body: form(fields))
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any] ?? [:]
    }

    static func register(
        _ client: any TestClientProtocol, redirect: String = "https://app.example/callback",
        scopes: String = "read write"
    ) async throws -> App {
        let response = try await post(
            client, "/api/v1/apps", [("client_name", "Pics"), ("redirect_uris", redirect), ("scopes", scopes)])
        #expect(response.status == .ok, "\(String(buffer: response.body))")
        let body = try json(response)
        return App(clientID: body["client_id"] as! String, secret: body["client_secret"] as! String)
    }

    /// Signs in on the consent page and approves; answers the redirect's Location (or the page, for oob).
    static func approve(
        _ client: any TestClientProtocol, app: App, redirect: String = "https://app.example/callback",
        scope: String = "read", extra: [(String, String)] = [], username: String = "alice"
    ) async throws -> TestResponse {
        try await post(
            client, "/oauth/authorize",
            [
                ("client_id", app.clientID), ("redirect_uri", redirect), ("scope", scope), ("response_type", "code"),
                ("state", "xyz"), ("username", username), ("password", "correct horse"), ("decision", "approve"),
            ] + extra)
    }

    static func code(from response: TestResponse) throws -> String {
        let location = try #require(response.headers[.location])
        let items = try #require(URLComponents(string: location)?.queryItems)
        #expect(items.first { $0.name == "state" }?.value == "xyz")
        return try #require(items.first { $0.name == "code" }?.value)
    }

    static func token(
        _ client: any TestClientProtocol, app: App, code: String, secret: Bool = true, verifier: String? = nil,
        redirect: String = "https://app.example/callback"
    ) async throws -> TestResponse {
        var fields = [
            ("grant_type", "authorization_code"), ("client_id", app.clientID), ("code", code),
            ("redirect_uri", redirect),
        ]
        if secret { fields.append(("client_secret", app.secret)) }
        if let verifier { fields.append(("code_verifier", verifier)) }
        return try await post(client, "/oauth/token", fields)
    }

    static func user(_ token: String, _ profile: UserProfile) -> TestUser {
        TestUser(profile: profile, token: token)
    }

    @Test func theAuthorizationCodeFlowGivesAScopedTokenOnce() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            let app = try await Self.register(client)
            let page = try await client.executeRequest(
                uri: "/oauth/authorize?client_id=\(app.clientID)&redirect_uri=https%3A%2F%2Fapp.example%2Fcallback"
                    + "&response_type=code&scope=read", method: .get, headers: [:], body: nil)
            #expect(page.status == .ok && String(buffer: page.body).contains("Pics"))
            #expect(page.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)

            let code = try Self.code(from: try await Self.approve(client, app: app))
            let answer = try Self.json(try await Self.token(client, app: app, code: code))
            #expect(answer["scope"] as? String == "read" && answer["token_type"] as? String == "Bearer")
            let token = try #require(answer["access_token"] as? String)
            let reader = Self.user(token, alice.profile)
            #expect(try await client.send(.get, "/api/v1/timeline", as: reader).status == .ok)
            // Read only: no liking, posting, following; no first-party-only routes.
            let post = try await client.post("chelsea.jpg", as: alice)
            let refused = try await client.problem(.put, "/api/v1/posts/\(post.id)/like", as: reader)
            #expect(refused.status == 403 && refused.detail.contains("write:favourites"))
            #expect(try await client.problem(.get, "/api/v1/me/sessions", as: reader).status == 403)
            #expect(try await client.problem(.post, "/api/v1/me/password", as: reader).status == 403)
            // The code works once.
            let again = try await Self.token(client, app: app, code: code)
            let error = try Self.json(again)["error"] as? String
            #expect(again.status == .badRequest && error == "invalid_grant")
        }
    }

    @Test func redirectsMatchExactlyAndScopesStayWithinTheAppsOwn() async throws {
        try await TestServer.run { client, _ in
            _ = try await client.signUp("alice")
            let app = try await Self.register(client, scopes: "read")
            let wrong = try await Self.approve(client, app: app, redirect: "https://app.example/callback/")
            #expect(wrong.status == .badRequest && wrong.headers[.location] == nil, "never redirected elsewhere")
            let evil = try await Self.approve(client, app: app, redirect: "https://evil.example/callback")
            #expect(evil.status == .badRequest && evil.headers[.location] == nil)
            // A request nobody decided on is refused on the server's own page, the app's address offered as a link:
            // anyone may register an app, so a redirect here would make the server an open redirector.
            for scope in ["read write", "admin:write"] {
                let refused = try await Self.approve(client, app: app, scope: scope)
                #expect(refused.status == .badRequest && refused.headers[.location] == nil)
                #expect(String(buffer: refused.body).contains("error=invalid_scope"))
            }
            let page = try await client.send(
                .get,
                "/oauth/authorize?client_id=\(app.clientID)&response_type=token"
                    + "&redirect_uri=https%3A%2F%2Fapp.example%2Fcallback")
            #expect(page.status == .badRequest && page.headers[.location] == nil, "never redirected by itself")
            #expect(String(buffer: page.body).contains("Back to the app (app.example)"))
            let denied = try await Self.post(
                client, "/oauth/authorize",
                [
                    ("client_id", app.clientID), ("redirect_uri", "https://app.example/callback"), ("scope", "read"),
                    ("response_type", "code"), ("decision", "deny"),
                ])
            #expect(denied.headers[.location]?.contains("error=access_denied") == true)
            let badPassword = try await Self.post(
                client, "/oauth/authorize",
                [
                    ("client_id", app.clientID), ("redirect_uri", "https://app.example/callback"), ("scope", "read"),
                    ("response_type", "code"), ("username", "alice"), ("password", "wrong password"),
                    ("decision", "approve"),
                ])
            #expect(badPassword.status == .unprocessableContent && badPassword.headers[.location] == nil)
            for redirect in ["javascript:alert(1)", "https://x.example/#frag", "relative/path", ""] {
                let refused = try await Self.post(
                    client, "/api/v1/apps", [("client_name", "Bad"), ("redirect_uris", redirect)])
                #expect(refused.status == .unprocessableContent, "\(redirect)")
            }
            // The token endpoint: wrong secret, another app's code, a grant type not offered.
            let code = try Self.code(from: try await Self.approve(client, app: app))
            let other = try await Self.register(client)
            #expect(try await Self.token(client, app: other, code: code).status == .badRequest)
            let password = try await Self.post(
                client, "/oauth/token",
                [
                    ("grant_type", "password"), ("client_id", app.clientID), ("username", "alice"),
                    ("password", "correct horse"),
                ])
            let error = try Self.json(password)["error"] as? String
            #expect(error == "unsupported_grant_type")
        }
    }

    @Test func pkceIsCheckedAndRequiredWithoutTheSecret() async throws {
        try await TestServer.run { client, _ in
            _ = try await client.signUp("alice")
            let app = try await Self.register(client)
            let verifier = String(repeating: "v", count: 50)
            let challenge = Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            let pkce = [("code_challenge", challenge), ("code_challenge_method", "S256")]
            let code = try Self.code(from: try await Self.approve(client, app: app, extra: pkce))
            #expect(
                try await Self.token(client, app: app, code: code, secret: false, verifier: "x" + verifier).status
                    == .badRequest)
            let code2 = try Self.code(from: try await Self.approve(client, app: app, extra: pkce))
            let good = try await Self.token(client, app: app, code: code2, secret: false, verifier: verifier)
            #expect(good.status == .ok)
            // Without PKCE, a client must send its secret.
            let code3 = try Self.code(from: try await Self.approve(client, app: app))
            #expect(try await Self.token(client, app: app, code: code3, secret: false).status == .unauthorized)
            let plain = try await Self.approve(
                client, app: app, extra: [("code_challenge", challenge), ("code_challenge_method", "plain")])
            #expect(plain.headers[.location] == nil && String(buffer: plain.body).contains("error=invalid_request"))
        }
    }

    @Test func guessingOnTheConsentPageIsThrottledWithRetryAfter() async throws {
        try await TestServer.run { client, _ in
            _ = try await client.signUp("alice")
            let app = try await Self.register(client, scopes: "read")
            // Guessing on the consent page trips the log-in throttle, whose answer says when to come back.
            var throttled: TestResponse?
            for _ in 0..<8 where throttled == nil {
                let answer = try await Self.post(
                    client, "/oauth/authorize",
                    [
                        ("client_id", app.clientID), ("redirect_uri", "https://app.example/callback"),
                        ("scope", "read"), ("response_type", "code"), ("username", "alice"),
                        ("password", "wrong password"), ("decision", "approve"),
                    ])
                if answer.status == .tooManyRequests { throttled = answer }
            }
            let retry = try #require(throttled?.headers[.retryAfter], "the throttle answers 429 with Retry-After")
            #expect((Int(retry) ?? 0) >= 1)
        }
    }

    @Test func anAppsOwnTokenReachesOnlyWhatNeedsNoUser() async throws {
        try await TestServer.run { client, _ in
            _ = try await client.signUp("alice")
            let app = try await Self.register(client)
            func grant(_ fields: [(String, String)]) async throws -> TestResponse {
                try await Self.post(
                    client, "/oauth/token",
                    [("grant_type", "client_credentials"), ("client_id", app.clientID)] + fields)
            }
            #expect(try await grant([]).status == .unauthorized, "the secret is needed")
            #expect(try await grant([("client_secret", app.secret), ("scope", "follow")]).status == .badRequest)
            let answer = try Self.json(try await grant([("client_secret", app.secret)]))
            #expect(answer["scope"] as? String == "read")
            let token = try #require(answer["access_token"] as? String)
            func verify() async throws -> TestResponse {
                try await client.executeRequest(
                    uri: "/api/v1/apps/verify_credentials", method: .get,
                    headers: [.authorization: "Bearer \(token)"], body: nil)
            }
            let verified = try await verify()
            let name = try Self.json(verified)["name"] as? String
            #expect(verified.status == .ok && name == "Pics")
            let timeline = try await client.executeRequest(
                uri: "/api/v1/timeline", method: .get, headers: [.authorization: "Bearer \(token)"], body: nil)
            #expect(timeline.status == .unauthorized, "no user behind it")
            let revoked = try await Self.post(
                client, "/oauth/revoke", [("client_id", app.clientID), ("client_secret", app.secret), ("token", token)])
            #expect(revoked.status == .ok)
            #expect(try await verify().status == .unauthorized)
        }
    }

    @Test func revokingEndsTheTokenAndTheAppListsItsGrants() async throws {
        try await TestServer.run({ $0.rateLimits = .unlimited }, setup: .live) { client, _ in
            let alice = try await client.signUp("alice")
            let app = try await Self.register(client)
            func newToken() async throws -> TestUser {
                let code = try Self.code(from: try await Self.approve(client, app: app, scope: "read write"))
                let answer = try Self.json(try await Self.token(client, app: app, code: code))
                return Self.user(answer["access_token"] as! String, alice.profile)
            }
            let first = try await newToken()
            let listed: Page<AppGrant> = try await client.call(.get, "/api/v1/me/apps", as: alice)
            #expect(listed.items.map(\.name) == ["Pics"] && listed.items[0].scopes == "read write")
            #expect(try await client.problem(.get, "/api/v1/me/apps", as: first).status == 403, "first-party only")

            // RFC 7009: the app revokes its own token.
            let revoked = try await Self.post(
                client, "/oauth/revoke",
                [("client_id", app.clientID), ("client_secret", app.secret), ("token", first.token)])
            #expect(revoked.status == .ok)
            #expect(try await client.problem(.get, "/api/v1/timeline", as: first).status == 401)

            // The user revokes the app: its streams close at once.
            let second = try await newToken()
            let port = try #require(client.port)
            let socket = try await LiveClient.connect(port: port, token: second.token)
            let apps: Page<AppGrant> = try await client.call(.get, "/api/v1/me/apps", as: alice)
            #expect(
                try await client.send(.delete, "/api/v1/me/apps/\(apps.items[0].id)", as: alice).status == .noContent)
            #expect(try await socket.closed.value?.closeCode == .unknown(LiveCloseCode.sessionEnded))
            #expect(try await client.problem(.get, "/api/v1/timeline", as: second).status == 401)
            #expect(try await client.problem(.delete, "/api/v1/me/apps/\(apps.items[0].id)", as: alice).status == 404)
        }
    }

    /// Every route of the API, asked with a token the user granted no scope it needs (`push` only), is refused with
    /// 403: the table of scopes leaves no route open by default.
    @Test func everyRouteRefusesATokenWithoutItsScope() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            let app = try await Self.register(client, scopes: "push")
            let code = try Self.code(from: try await Self.approve(client, app: app, scope: "push"))
            let answer = try Self.json(try await Self.token(client, app: app, code: code))
            let pushOnly = Self.user(answer["access_token"] as! String, alice.profile)
            // And a token with every scope, which every one of those routes lets through (so the table names the
            // routes as the router does).
            let all = try await Self.register(client, scopes: "read write follow")
            let allCode = try Self.code(from: try await Self.approve(client, app: all, scope: "read write follow"))
            let allAnswer = try Self.json(try await Self.token(client, app: all, code: allCode))
            let everything = Self.user(allAnswer["access_token"] as! String, alice.profile)
            var checked = 0
            for key in RouteScopes.required.keys.sorted() where RouteScopes.required[key] != RouteScopes.anyScope {
                let parts = key.split(separator: " ", maxSplits: 1)
                let method = HTTPRequest.Method(String(parts[0]))!
                let path = String(parts[1]).replacingOccurrences(of: "{username}", with: "alice")
                    .replacingOccurrences(of: "{tag}", with: "cats").replacingOccurrences(of: "{id}", with: "1")
                let response = try await client.send(method, path, as: pushOnly)
                #expect(response.status == .forbidden, "\(key) answered \(response.status)")
                if key.hasSuffix("/streaming/user") { continue }  // a stream: it would not end
                let allowed = try await client.send(method, path, as: everything)
                #expect(allowed.status != .forbidden, "\(key) refused a token with every scope")
                checked += 1
            }
            #expect(checked > 40)
            // Routes for the first-party clients only, and any route not in the table, refuse every app token.
            for (method, path) in [
                (HTTPRequest.Method.get, "/api/v1/me/sessions"), (.get, "/api/v1/me/export"),
                (.post, "/api/v1/me/delete"),
                (.get, "/api/v1/moderation/reports"), (.get, "/api/v1/me/apps"),
            ] {
                #expect(try await client.send(method, path, as: pushOnly).status == .forbidden, "\(method) \(path)")
            }
        }
    }
}

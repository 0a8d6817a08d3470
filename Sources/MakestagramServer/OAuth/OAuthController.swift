import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import MakestagramAPI
import MakestagramCore
import MakestagramStore

/// The OAuth 2 authorization server for third-party apps: registration (`POST /api/v1/apps`), the sign-in and
/// consent page (`/oauth/authorize`, authorization code with PKCE S256), tokens (`POST /oauth/token`), revocation
/// (`POST /oauth/revoke`, RFC 7009) and the metadata document (RFC 8414). No implicit or password grant. An app's
/// access token is a session of its own, carrying the scopes granted (``RouteScopes`` enforces them), so that
/// revoking it or the app ends it on every instance and closes its streams like a log-out.
struct OAuthController<S: Store>: Sendable {
    let core: Core<S>
    let limits: ClientLimits

    var store: S { core.store }
    var apps: Apps<S> { core.apps }

    /// The redirect URI that shows the code on the page instead of redirecting.
    static var outOfBand: String { "urn:ietf:wg:oauth:2.0:oob" }

    var publicRoutes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.post("api/v1/apps", use: registerApp)
        routes.get("oauth/authorize", use: authorizePage)
        routes.post("oauth/authorize", use: authorize)
        routes.post("oauth/token", use: token)
        routes.post("oauth/revoke", use: revoke)
        routes.get(".well-known/oauth-authorization-server", use: metadata)
        routes.get("api/v1/apps/verify_credentials", use: verifyApp)
        return routes
    }

    /// Routes for the logged-in user (first-party clients only): the apps they authorised.
    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("me/apps", use: authorizedApps)
        routes.delete("me/apps/:id", use: revokeApp)
        return routes
    }

    // MARK: Registration

    @Sendable func registerApp(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = try await OAuthForm.read(request)
        guard let name = form["client_name"], name.count <= 100, !name.contains(where: \.isNewline) else {
            throw APIError.invalidField(field: "client_name", reason: "is needed: 1 to 100 characters on one line")
        }
        let uris = form.all("redirect_uris").flatMap { $0.split(whereSeparator: \.isNewline) }.map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        guard !uris.isEmpty, uris.count <= 10, uris.allSatisfy(Self.isValidRedirect) else {
            throw APIError.invalidField(
                field: "redirect_uris",
                reason: "must be 1 to 10 absolute URIs without fragments, one per line, or \(Self.outOfBand)")
        }
        guard let scopes = Scopes(form["scopes"] ?? "read") else {
            throw APIError.invalidField(field: "scopes", reason: "holds a scope this server does not know")
        }
        let website = form["website"]
        if let website, website.count > 500 || URL(string: website)?.scheme == nil {
            throw APIError.invalidField(field: "website", reason: "must be an absolute URL")
        }
        let (app, secret) = try await apps.register(
            name: name, website: website, redirectURIs: uris, scopes: scopes.description,
            address: limits.address(of: request, context))
        context.logger.info("app registered", metadata: ["app": "\(app.id)"])
        return try Self.json(
            [
                "id": String(app.id), "name": app.name, "website": app.website as Any,
                "scopes": scopes.values.sorted(), "redirect_uri": uris.joined(separator: "\n"),
                "redirect_uris": uris, "client_id": app.clientID, "client_secret": secret,
                "client_secret_expires_at": 0,
            ], status: .ok)
    }

    /// An absolute URI without a fragment (any scheme: apps use their own, like `myapp://callback`), or the
    /// out-of-band one.
    static func isValidRedirect(_ uri: String) -> Bool {
        if uri == outOfBand { return true }
        guard uri.count <= 500, !uri.contains("#"), let url = URL(string: uri), let scheme = url.scheme,
            !["javascript", "data", "file", "vbscript"].contains(scheme.lowercased())
        else { return false }
        return true
    }

    // MARK: Authorization

    /// A checked authorization request.
    struct AuthorizationRequest {
        var app: OAuthApp
        var redirectURI: String
        var scopes: Scopes
        var state: String?
        var codeChallenge: String?

        /// Its fields, to carry through the consent form.
        var fields: [(String, String)] {
            [
                ("client_id", app.clientID), ("redirect_uri", redirectURI), ("scope", scopes.description),
                ("response_type", "code"),
            ] + (state.map { [("state", $0)] } ?? [])
                + (codeChallenge.map { [("code_challenge", $0), ("code_challenge_method", "S256")] } ?? [])
        }
    }

    /// Why a request cannot be authorized. Either way it is said on the server's own page: anyone may register an
    /// app with any redirect URI, so redirecting on a malformed request nobody has looked at would make this server
    /// an open redirector (RFC 9700 §4.11). A `redirect` failure offers the app's address with the error as a link.
    /// Only a person's own decision on the consent page (Authorize or Deny) sends the browser back to the app by
    /// itself.
    enum AuthorizationFailure: Error {
        case page(String)
        case redirect(AuthorizationRequest, error: String, description: String)
    }

    func check(_ form: OAuthForm) async throws -> AuthorizationRequest {
        guard let clientID = form["client_id"], let app = try await store.oauthApp(clientID: clientID) else {
            throw AuthorizationFailure.page("No app is registered with this client ID.")
        }
        let redirect = form["redirect_uri"] ?? (app.redirectURIs.count == 1 ? app.redirectURIs[0] : nil)
        guard let redirect, app.redirectURIs.contains(redirect) else {
            throw AuthorizationFailure.page("The redirect URI is not one the app registered (they must match exactly).")
        }
        var request = AuthorizationRequest(
            app: app, redirectURI: redirect, scopes: Scopes(values: ["read"]), state: form["state"],
            codeChallenge: nil)
        guard form["response_type"] == "code" else {
            throw AuthorizationFailure.redirect(
                request, error: "unsupported_response_type", description: "Only response_type=code is supported.")
        }
        guard let scopes = Scopes(form["scope"] ?? form["scopes"] ?? app.scopes),
            let allowed = Scopes(app.scopes), allowed.covers(scopes)
        else {
            throw AuthorizationFailure.redirect(
                request, error: "invalid_scope", description: "The scopes asked for are not within the app's.")
        }
        request.scopes = scopes
        if let challenge = form["code_challenge"] {
            guard (form["code_challenge_method"] ?? "plain") == "S256", (43...128).contains(challenge.count) else {
                throw AuthorizationFailure.redirect(
                    request, error: "invalid_request", description: "Only S256 code challenges are supported.")
            }
            request.codeChallenge = challenge
        }
        return request
    }

    @Sendable func authorizePage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = OAuthForm(urlEncoded: Substring(request.uri.query ?? ""))
        do {
            let checked = try await check(form)
            return Self.page(
                AuthorizePage.consent(
                    appName: checked.app.name, website: checked.app.website, scopes: checked.scopes,
                    fields: checked.fields, error: nil))
        } catch let failure as AuthorizationFailure {
            return Self.respond(failure)
        }
    }

    @Sendable func authorize(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = try await OAuthForm.read(request)
        let checked: AuthorizationRequest
        do {
            checked = try await check(form)
        } catch let failure as AuthorizationFailure {
            return Self.respond(failure)
        }
        guard form["decision"] == "approve" else {
            return Self.redirect(
                to: checked.redirectURI,
                with: [("error", "access_denied"), ("error_description", "The user denied the request.")]
                    + (checked.state.map { [("state", $0)] } ?? []))
        }
        func again(_ message: String, status: HTTPResponse.Status = .unprocessableContent) -> Response {
            Self.page(
                AuthorizePage.consent(
                    appName: checked.app.name, website: checked.app.website, scopes: checked.scopes,
                    fields: checked.fields, error: message), status: status)
        }
        guard let raw = form["username"], let username = try? TextInput.username(raw),
            let password = form.fields["password"]?.first, (try? TextInput.passwordShape(password)) != nil
        else { return again("Wrong username or password.") }
        let credentials: Credentials
        do {
            credentials = try await core.accounts.checkLogIn(
                username: username, password: password, address: limits.address(of: request, context))
        } catch UseCaseError.tooManyAttempts(let seconds) {
            var refused = again("Too many failed log-ins. Try again in \(seconds) seconds.", status: .tooManyRequests)
            refused.headers[.retryAfter] = String(seconds)
            return refused
        } catch UseCaseError.invalidCredentials {
            return again("Wrong username or password.")
        } catch UseCaseError.accountSuspended {
            return again("This account is suspended by the moderators.", status: .forbidden)
        }
        let code = try await apps.grantCode(
            AuthorizationGrant(
                appID: checked.app.id, userID: credentials.userID, redirectURI: checked.redirectURI,
                scopes: checked.scopes.description, codeChallenge: checked.codeChallenge))
        context.logger.info(
            "app authorized", metadata: ["app": "\(checked.app.id)", "user": "\(credentials.userID)"])
        if checked.redirectURI == Self.outOfBand {
            return Self.page(AuthorizePage.code(code, appName: checked.app.name))
        }
        return Self.redirect(
            to: checked.redirectURI, with: [("code", code)] + (checked.state.map { [("state", $0)] } ?? []))
    }

    // MARK: Tokens

    @Sendable func token(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = try await OAuthForm.read(request)
        guard let grantType = form["grant_type"] else {
            return Self.oauthError("invalid_request", "grant_type is needed.")
        }
        guard grantType == "authorization_code" || grantType == "client_credentials" else {
            return Self.oauthError(
                "unsupported_grant_type",
                "The authorization_code grant (with PKCE) and client_credentials are supported; implicit and password are not."
            )
        }
        guard let clientID = form["client_id"], let app = try await store.oauthApp(clientID: clientID) else {
            return Self.oauthError("invalid_client", "Unknown client.", status: .unauthorized)
        }
        let secret = form["client_secret"]
        if let secret, !Self.same(SessionToken.hash(secret), app.secretHash) {
            return Self.oauthError("invalid_client", "Wrong client secret.", status: .unauthorized)
        }
        if grantType == "client_credentials" {
            return try await appToken(
                app, secret: secret, scope: form["scope"], client: limits.address(of: request, context))
        }
        guard let code = form["code"], let grant = try await apps.redeemCode(code), grant.appID == app.id
        else {
            return Self.oauthError("invalid_grant", "The code is unknown, used, expired or for another app.")
        }
        guard (form["redirect_uri"] ?? grant.redirectURI) == grant.redirectURI else {
            return Self.oauthError("invalid_grant", "redirect_uri differs from the authorization request's.")
        }
        if let challenge = grant.codeChallenge {
            guard let verifier = form["code_verifier"], Self.s256(verifier) == challenge else {
                return Self.oauthError("invalid_grant", "The code verifier does not match the code challenge.")
            }
        } else if secret == nil {
            // A client without its secret proves itself with PKCE, or not at all.
            return Self.oauthError("invalid_client", "Send the client secret, or use PKCE.", status: .unauthorized)
        }
        let token = try await apps.startSession(grant)
        return try Self.json(
            [
                "access_token": token, "token_type": "Bearer", "scope": grant.scopes,
                "created_at": Int(Date().timeIntervalSince1970),
            ], status: .ok)
    }

    /// A token the app holds for itself (RFC 6749 §4.4): it needs its secret, and reaches nothing of any user.
    func appToken(_ app: OAuthApp, secret: String?, scope: String?, client: String) async throws -> Response {
        guard secret != nil else {
            return Self.oauthError(
                "invalid_client", "The client_credentials grant needs the client secret.", status: .unauthorized)
        }
        guard let scopes = Scopes(scope ?? "read"), let allowed = Scopes(app.scopes), allowed.covers(scopes) else {
            return Self.oauthError("invalid_scope", "The scopes asked for are not within the app's.")
        }
        let token = try await apps.appToken(app: app, scopes: scopes.description, address: client)
        return try Self.json(
            [
                "access_token": token, "token_type": "Bearer", "scope": scopes.description,
                "created_at": Int(Date().timeIntervalSince1970),
            ], status: .ok)
    }

    /// Mastodon's `GET /api/v1/apps/verify_credentials`: the app a token belongs to, for an app's own token or one a
    /// user granted it.
    @Sendable func verifyApp(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let token = BearerAuthMiddleware<S>.bearerToken(request.headers) else { throw APIError.unauthorized }
        let hash = SessionToken.hash(token)
        var found: (app: OAuthApp, scopes: String)?
        if let own = try await store.appToken(tokenHash: hash) {
            found = own
        } else if let session = try await store.session(tokenHash: hash), let appID = session.appID,
            let app = try await store.oauthApp(id: appID)
        {
            found = (app, session.scopes ?? app.scopes)
        }
        guard let (app, scopes) = found else { throw APIError.unauthorized }
        return try Self.json(
            [
                "id": String(app.id), "name": app.name, "website": app.website as Any,
                "scopes": scopes.split(separator: " ").map(String.init),
                "redirect_uri": app.redirectURIs.joined(separator: "\n"), "redirect_uris": app.redirectURIs,
            ], status: .ok)
    }

    /// RFC 7009: the token ends if it is the app's; the answer is the same whatever the token was.
    @Sendable func revoke(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = try await OAuthForm.read(request)
        guard let clientID = form["client_id"], let app = try await store.oauthApp(clientID: clientID),
            let secret = form["client_secret"], Self.same(SessionToken.hash(secret), app.secretHash)
        else { return Self.oauthError("invalid_client", "Unknown client or wrong secret.", status: .unauthorized) }
        if let token = form["token"] { try await apps.revokeToken(token, app: app) }
        return try Self.json([:], status: .ok)
    }

    @Sendable func metadata(_ request: Request, context: AppRequestContext) async throws -> Response {
        let base = limits.origin(of: request, context)
        return try Self.json(
            [
                "issuer": base, "authorization_endpoint": base + "/oauth/authorize",
                "token_endpoint": base + "/oauth/token", "revocation_endpoint": base + "/oauth/revoke",
                "app_registration_endpoint": base + "/api/v1/apps",
                "scopes_supported": Scopes.known.sorted(), "response_types_supported": ["code"],
                "response_modes_supported": ["query"],
                "grant_types_supported": ["authorization_code", "client_credentials"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_post", "none"],
                "service_documentation": base + "/api/v1/openapi.yaml",
            ], status: .ok)
    }

    // MARK: Authorised apps

    @Sendable func authorizedApps(_ request: Request, context: AppRequestContext) async throws -> Page<AppGrant> {
        let user = try context.requireUser()
        let apps = try await store.authorizedApps(userID: user.id).map {
            AppGrant(id: $0.appID, name: $0.name, website: $0.website, scopes: $0.scopes, authorizedAt: $0.authorizedAt)
        }
        return Page(items: apps, nextCursor: nil)
    }

    /// Ends every token the app holds for the user: its requests fail at once and its streams close.
    @Sendable func revokeApp(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let user = try context.requireUser()
        try await apps.revoke(appID: try context.id("id", of: "app"), userID: user.id)
        context.logger.info("app revoked", metadata: ["user": "\(user.id)"])
        return .noContent
    }

    // MARK: Answers

    static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// BASE64URL(SHA256(verifier)), as RFC 7636 computes a challenge.
    static func s256(_ verifier: String) -> String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func json(_ object: [String: Any], status: HTTPResponse.Status) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return Response(
            status: status,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func oauthError(_ code: String, _ description: String, status: HTTPResponse.Status = .badRequest)
        -> Response
    {
        (try? json(["error": code, "error_description": description], status: status))
            ?? Response(status: status)
    }

    static func page(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"]
        // The web client's policy, but the form may lead to the app's redirect URI.
        headers[.contentSecurityPolicy] =
            "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func redirect(to uri: String, with items: [(String, String)]) -> Response {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#?/")
        let query = items.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
            .joined(separator: "&")
        let location = uri + (uri.contains("?") ? "&" : "?") + query
        return Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    static func respond(_ failure: AuthorizationFailure) -> Response {
        switch failure {
        case .page(let message):
            return page(AuthorizePage.error(message), status: .badRequest)
        case .redirect(let request, let error, let description):
            if request.redirectURI == outOfBand { return page(AuthorizePage.error(description), status: .badRequest) }
            let back = redirect(
                to: request.redirectURI,
                with: [("error", error), ("error_description", description)]
                    + (request.state.map { [("state", $0)] } ?? []))
            return page(AuthorizePage.error(description, back: back.headers[.location]), status: .badRequest)
        }
    }
}

import Foundation
import MakestagramAPI
import MakestagramStore

/// Third-party apps: registering one, the codes and tokens a person grants it, and taking them back. What OAuth's
/// requests must look like (redirect URIs, PKCE, grant types) is the OAuth door's to check; what is written, and the
/// limits on writing it, are here.
package struct Apps<S: Store>: Sendable {
    let core: Core<S>
    /// The part of the store this use case writes and reads.
    var store: some AppStoring & SessionStoring { core.store }

    /// How long an authorization code works.
    package static var codeLifetime: TimeInterval { 600 }

    /// Registers an app from `address`; answers it and its secret (shown once).
    package func register(
        name: String, website: String?, redirectURIs: [String], scopes: String, address: String
    ) async throws -> (app: OAuthApp, secret: String) {
        try core.protection.take(.signUps, client: address)
        let secret = SessionToken.generate()
        let app = try await store.createOAuthApp(
            NewOAuthApp(
                clientID: SessionToken.generate(), secretHash: SessionToken.hash(secret), name: name,
                website: website, redirectURIs: redirectURIs, scopes: scopes))
        return (app, secret)
    }

    /// A code for what the person granted, which works once within ``codeLifetime``.
    package func grantCode(_ grant: AuthorizationGrant) async throws -> String {
        let code = SessionToken.generate()
        try await store.createAuthorizationCode(
            codeHash: SessionToken.hash(code), grant: grant, expiresAt: Date().addingTimeInterval(Self.codeLifetime))
        return code
    }

    /// Uses up a code: what it granted, or nil for an unknown, used or expired one.
    package func redeemCode(_ code: String) async throws -> AuthorizationGrant? {
        try await store.redeemAuthorizationCode(codeHash: SessionToken.hash(code))
    }

    /// A token the app holds for the person who granted `grant`.
    package func startSession(_ grant: AuthorizationGrant) async throws -> String {
        let token = SessionToken.generate()
        try await store.createAppSession(
            userID: grant.userID, tokenHash: SessionToken.hash(token), appID: grant.appID, scopes: grant.scopes)
        return token
    }

    /// A token the app holds for itself (no user), counted with sign-ups per address: each is a row that stays
    /// until revoked.
    package func appToken(app: OAuthApp, scopes: String, address: String) async throws -> String {
        try core.protection.take(.signUps, client: address)
        let token = SessionToken.generate()
        try await store.createAppToken(tokenHash: SessionToken.hash(token), appID: app.id, scopes: scopes)
        return token
    }

    /// Ends `token` if it is the app's (a session it holds for a person, or its own); anything else is ignored.
    package func revokeToken(_ token: String, app: OAuthApp) async throws {
        let hash = SessionToken.hash(token)
        if let session = try await store.session(tokenHash: hash), session.appID == app.id {
            try await store.deleteSession(tokenHash: hash)
        }
        try await store.deleteAppToken(tokenHash: hash, appID: app.id)
    }

    /// Ends every token the app holds for the user; their requests fail at once and their streams close.
    package func revoke(appID: Int64, userID: Int64) async throws {
        guard try await store.revokeApp(appID: appID, userID: userID) > 0 else { throw UseCaseError.notFound("app") }
    }
}

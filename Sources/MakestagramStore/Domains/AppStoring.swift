import Foundation
import MakestagramAPI

/// Third-party apps (OAuth 2): their registrations, codes and tokens. Part of ``Store``; both stores implement it.
public protocol AppStoring: Sendable {
    /// Registers an app.
    func createOAuthApp(_ app: NewOAuthApp) async throws -> OAuthApp
    /// The app with this client ID, or nil.
    func oauthApp(clientID: String) async throws -> OAuthApp?
    /// Records an authorization code (by its hash) that the user granted the app, until `expiresAt`.
    func createAuthorizationCode(codeHash: [UInt8], grant: AuthorizationGrant, expiresAt: Date) async throws
    /// Uses up a live authorization code and answers what was granted; nil for an unknown, used or expired one.
    func redeemAuthorizationCode(codeHash: [UInt8]) async throws -> AuthorizationGrant?
    /// Records a session for an app's access token, with the scopes granted to it.
    func createAppSession(userID: Int64, tokenHash: [UInt8], appID: Int64, scopes: String) async throws
    /// The apps that hold tokens of the user, most recently authorised first.
    func authorizedApps(userID: Int64) async throws -> [AuthorizedApp]
    /// Records a token an app holds for itself (no user), with its scopes.
    func createAppToken(tokenHash: [UInt8], appID: Int64, scopes: String) async throws
    /// The app and scopes of an app's own token, or nil.
    func appToken(tokenHash: [UInt8]) async throws -> (app: OAuthApp, scopes: String)?
    /// Ends an app's own token; unknown hashes are ignored.
    func deleteAppToken(tokenHash: [UInt8], appID: Int64) async throws
    /// The app with this ID, or nil.
    func oauthApp(id: Int64) async throws -> OAuthApp?
    /// Ends every token the app holds for the user (each published as ``StoreEvent/sessionEnded(tokenHash:)``, so
    /// that its streams close); answers how many ended.
    func revokeApp(appID: Int64, userID: Int64) async throws -> Int
}

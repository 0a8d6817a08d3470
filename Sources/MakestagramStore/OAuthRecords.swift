import Foundation
import MakestagramAPI

/// A third-party app registered for OAuth 2 (`POST /api/v1/apps`).
public struct OAuthApp: Sendable, Equatable {
    public var id: Int64
    /// Public: the app sends it with every request to the authorization server.
    public var clientID: String
    /// SHA-256 of the client secret (the secret itself is shown once, at registration).
    public var secretHash: [UInt8]
    public var name: String
    public var website: String?
    /// The exact redirect URIs the app may use (`urn:ietf:wg:oauth:2.0:oob` for a code shown on the page).
    public var redirectURIs: [String]
    /// The scopes the app may ask for, space-separated.
    public var scopes: String
    public var createdAt: Date

    public init(
        id: Int64, clientID: String, secretHash: [UInt8], name: String, website: String?, redirectURIs: [String],
        scopes: String, createdAt: Date
    ) {
        self.id = id
        self.clientID = clientID
        self.secretHash = secretHash
        self.name = name
        self.website = website
        self.redirectURIs = redirectURIs
        self.scopes = scopes
        self.createdAt = createdAt
    }
}

/// What is needed to register an app; the server makes its client ID and secret.
public struct NewOAuthApp: Sendable {
    public var clientID: String
    public var secretHash: [UInt8]
    public var name: String
    public var website: String?
    public var redirectURIs: [String]
    public var scopes: String

    public init(
        clientID: String, secretHash: [UInt8], name: String, website: String?, redirectURIs: [String], scopes: String
    ) {
        self.clientID = clientID
        self.secretHash = secretHash
        self.name = name
        self.website = website
        self.redirectURIs = redirectURIs
        self.scopes = scopes
    }
}

/// An authorization code a user granted an app, as it was granted: redeemed once, before it expires.
public struct AuthorizationGrant: Sendable, Equatable {
    public var appID: Int64
    public var userID: Int64
    public var redirectURI: String
    public var scopes: String
    /// The PKCE S256 challenge the app sent, if it sent one.
    public var codeChallenge: String?

    public init(appID: Int64, userID: Int64, redirectURI: String, scopes: String, codeChallenge: String?) {
        self.appID = appID
        self.userID = userID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.codeChallenge = codeChallenge
    }
}

/// Who a bearer token speaks for: the user, and for a token an app holds, the app and the scopes granted to it
/// (nil for the first-party clients' sessions, which may do everything the user may).
public struct SessionIdentity: Sendable, Equatable {
    public var user: UserSummary
    public var appID: Int64?
    public var scopes: String?

    public init(user: UserSummary, appID: Int64? = nil, scopes: String? = nil) {
        self.user = user
        self.appID = appID
        self.scopes = scopes
    }
}

/// An app a user authorised, for their settings: revoking it ends every token it holds.
public struct AuthorizedApp: Sendable, Equatable {
    public var appID: Int64
    public var name: String
    public var website: String?
    /// The scopes of its tokens, together.
    public var scopes: String
    /// When the user last authorised it.
    public var authorizedAt: Date

    public init(appID: Int64, name: String, website: String?, scopes: String, authorizedAt: Date) {
        self.appID = appID
        self.name = name
        self.website = website
        self.scopes = scopes
        self.authorizedAt = authorizedAt
    }
}

import Foundation

/// One of the signed-in user's sessions (a browser, app or command line logged in), as `GET /api/v1/me/sessions`
/// lists them, most recently used first.
public struct SessionInfo: Codable, Sendable, Equatable, Identifiable {
    /// Names the session for `DELETE /api/v1/me/sessions/{id}` (not its token, from which it cannot be derived).
    public var id: String
    public var createdAt: Date
    /// When a request last used it, to the minute.
    public var lastUsedAt: Date
    /// The `User-Agent` of its last requests, if they sent one.
    public var userAgent: String?
    /// The address its last requests came from.
    public var address: String?
    /// Whether this is the session making the request.
    public var current: Bool

    public init(
        id: String, createdAt: Date, lastUsedAt: Date, userAgent: String?, address: String?, current: Bool
    ) {
        self.id = id
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.userAgent = userAgent
        self.address = address
        self.current = current
    }
}

/// The body of `POST /api/v1/me/password`.
public struct ChangePasswordRequest: Codable, Sendable {
    public var currentPassword: String
    public var newPassword: String

    public init(currentPassword: String, newPassword: String) {
        self.currentPassword = currentPassword
        self.newPassword = newPassword
    }
}

/// The answer to a password change: every other session was ended.
public struct PasswordChanged: Codable, Sendable, Equatable {
    /// How many other sessions were logged out.
    public var endedSessions: Int

    public init(endedSessions: Int) {
        self.endedSessions = endedSessions
    }
}

/// An app the user authorised (`GET /api/v1/me/apps`): revoking it ends every token it holds.
public struct AppGrant: Codable, Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var website: String?
    /// The scopes granted, space-separated.
    public var scopes: String
    public var authorizedAt: Date

    public init(id: Int64, name: String, website: String?, scopes: String, authorizedAt: Date) {
        self.id = id
        self.name = name
        self.website = website
        self.scopes = scopes
        self.authorizedAt = authorizedAt
    }
}

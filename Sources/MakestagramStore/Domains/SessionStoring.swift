import Foundation
import MakestagramAPI

/// Accounts and their sessions: signing up, logging in and out, and the tickets that open the event stream. Part of ``Store``; both stores implement it.
public protocol SessionStoring: Sendable {
    /// Creates a user. Throws ``StoreError/usernameTaken`` when the username exists in any letter case.
    func createUser(_ user: NewUser) async throws -> UserProfile
    /// The stored credentials for a username (any letter case), or nil when there is no such user (or it is being
    /// deleted).
    func credentials(username: String) async throws -> Credentials?
    /// Records a session whose bearer token hashes to `tokenHash`.
    func createSession(userID: Int64, tokenHash: [UInt8], client: SessionClient) async throws
    /// The user's sessions, most recently used first.
    func sessions(userID: Int64) async throws -> [SessionRecord]
    /// Notes that the session was used now, by `client`.
    func touchSession(tokenHash: [UInt8], client: SessionClient) async throws
    /// Replaces the user's password hash and ends every other session of theirs (each published as
    /// ``StoreEvent/sessionEnded(tokenHash:)``), in one transaction; answers how many ended.
    func changePassword(userID: Int64, passwordHash: String, keeping tokenHash: [UInt8]) async throws -> Int
    /// Ends the session with this token hash; the token stops working at once. Unknown hashes are ignored.
    func deleteSession(tokenHash: [UInt8]) async throws
    /// Whom a live session's token hash speaks for (the user, and the app and scopes of an app's token), or nil.
    func session(tokenHash: [UInt8]) async throws -> SessionIdentity?
    /// Records a single-use ticket for opening the event stream under the session `tokenHash`, until `expiresAt`.
    /// Tickets are kept with the sessions, so that any server instance can redeem one another issued; logging out
    /// ends the session's tickets.
    func createEventTicket(ticketHash: [UInt8], tokenHash: [UInt8], expiresAt: Date) async throws
    /// Uses up a live ticket and answers its session's user and token hash; nil for an unknown, used or expired
    /// ticket.
    func redeemEventTicket(ticketHash: [UInt8]) async throws -> (user: UserSummary, tokenHash: [UInt8])?
}

extension SessionStoring {
    /// The user a live session's token hash belongs to, or nil.
    public func sessionUser(tokenHash: [UInt8]) async throws -> UserSummary? {
        try await session(tokenHash: tokenHash)?.user
    }

    /// A session with nothing known about its client.
    public func createSession(userID: Int64, tokenHash: [UInt8]) async throws {
        try await createSession(userID: userID, tokenHash: tokenHash, client: SessionClient())
    }
}

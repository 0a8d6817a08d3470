import Foundation
import HummingbirdBcrypt
import MakestagramAPI
import MakestagramStore

/// Accounts and sessions: signing up, logging in and out, passwords, event-stream tickets and deleting an account.
package struct Accounts<S: Store>: Sendable {
    let core: Core<S>
    /// The part of the store this use case writes and reads.
    var store: some SessionStoring & PeopleStoring & ActivityStoring & AccountDeletionStoring { core.store }
    var protection: Protection { core.protection }

    /// How long an event-stream ticket can be redeemed.
    package static var ticketLifetime: TimeInterval { 30 }

    /// Creates an account and logs it in from `client`; answers its profile and the new session's token.
    package func signUp(username raw: String, password: String, displayName raw2: String, client: SessionClient)
        async throws -> AuthResponse
    {
        let username = try TextInput.username(raw, registering: true)
        try TextInput.newPassword(password, username: username)
        let displayName = try TextInput.displayName(raw2)
        try protection.take(.signUps, client: client.address ?? "unknown")
        let user = try await create(username: username, password: password, displayName: displayName)
        return AuthResponse(user: user, token: try await startSession(user.id, client: client))
    }

    /// Creates an account whose fields were checked, without a session (demo data).
    package func create(username: String, password: String, displayName: String) async throws -> UserProfile {
        let cost = core.bcryptCost
        let hash = try await protection.hash { Bcrypt.hash(password, cost: cost) }
        return try await store.createUser(NewUser(username: username, displayName: displayName, passwordHash: hash))
    }

    /// Logs in: the password is checked against the throttle for (username, address) and address, at the same cost
    /// for an unknown user as for a known one. A username or password of a shape nobody's can have is simply wrong,
    /// said before any hashing and not counted as a failure.
    package func logIn(username raw: String, password: String, client: SessionClient) async throws -> AuthResponse {
        guard (try? TextInput.passwordShape(password)) != nil, let username = try? TextInput.username(raw) else {
            throw UseCaseError.invalidCredentials
        }
        let credentials = try await checkLogIn(username: username, password: password, address: client.address)
        guard let user = try await store.profile(id: credentials.userID, viewer: credentials.userID) else {
            throw UseCaseError.invalidCredentials
        }
        return AuthResponse(user: user, token: try await startSession(user.id, client: client))
    }

    /// Checks a log-in as ``logIn(username:password:client:)`` does, without starting a session (the OAuth consent
    /// page grants a code instead): the stored credentials of an active account, or a refusal.
    package func checkLogIn(username: String, password: String, address: String?) async throws -> Credentials {
        let address = address ?? "unknown"
        if let wait = protection.logins.begin(username: username, address: address) {
            throw UseCaseError.tooManyAttempts(retryAfter: wait.retryAfterSeconds)
        }
        var succeeded = false
        defer { protection.logins.finish(username: username, address: address, succeeded: succeeded) }
        let credentials = try await store.credentials(username: username)
        // An unknown user costs the same bcrypt check as a known one, so timing does not reveal which usernames
        // exist. (The decoy's own hash is made on first use, inside the hashing pool.)
        let stored = credentials?.passwordHash
        let valid = try await protection.hash { Bcrypt.verify(password, hash: stored ?? DecoyPassword.hash) }
        guard valid, let credentials else { throw UseCaseError.invalidCredentials }
        // Only once the password is right: nobody learns from a guess that an account is suspended.
        succeeded = true
        if credentials.status == .suspended { throw UseCaseError.accountSuspended }
        return credentials
    }

    /// Ends the session whose token hashes to `tokenHash`: its token fails at once on every instance, and its streams
    /// close.
    package func logOut(tokenHash: [UInt8]) async throws {
        try await store.deleteSession(tokenHash: tokenHash)
    }

    /// Logs out one of the user's sessions, named by its public ID (``SessionToken/publicID(_:)``).
    package func endSession(userID: Int64, publicID: String) async throws {
        guard
            let session = try await store.sessions(userID: userID).first(where: {
                SessionToken.publicID($0.tokenHash) == publicID
            })
        else { throw UseCaseError.notFound("session") }
        try await store.deleteSession(tokenHash: session.tokenHash)
    }

    /// Changes the password, given the current one, and logs out every other session of the user.
    package func changePassword(
        user: UserSummary, keeping tokenHash: [UInt8], current: String, new: String, address: String?
    ) async throws -> PasswordChanged {
        try TextInput.newPassword(new, username: user.username, field: "newPassword")
        guard new != current else {
            throw UseCaseError.invalidField(field: "newPassword", reason: "is the password you have: choose another")
        }
        try await verifyPassword(current, of: user, field: "currentPassword", address: address)
        let cost = core.bcryptCost
        let hash = try await protection.hash { Bcrypt.hash(new, cost: cost) }
        let ended = try await store.changePassword(userID: user.id, passwordHash: hash, keeping: tokenHash)
        return PasswordChanged(endedSessions: ended)
    }

    /// Checks the logged-in user's password for an action that needs it. A wrong one counts as a failed log-in (the
    /// same throttle), so this is no way around it, and is refused on `field`.
    package func verifyPassword(_ password: String, of user: UserSummary, field: String, address: String?)
        async throws
    {
        // A password of a shape nobody's can have is not theirs either: said so, before any hashing.
        guard (try? TextInput.passwordShape(password)) != nil else {
            throw UseCaseError.invalidField(field: field, reason: "is not your current password")
        }
        let address = address ?? "unknown"
        if let wait = protection.logins.begin(username: user.username, address: address) {
            throw UseCaseError.tooManyAttempts(retryAfter: wait.retryAfterSeconds)
        }
        var succeeded = false
        defer { protection.logins.finish(username: user.username, address: address, succeeded: succeeded) }
        let stored = try await store.credentials(username: user.username)?.passwordHash
        guard let stored, try await protection.hash({ Bcrypt.verify(password, hash: stored) }) else {
            throw UseCaseError.invalidField(field: field, reason: "is not your current password")
        }
        succeeded = true
    }

    /// Deletes the account, given its password: at once it is hidden from everyone and logged out everywhere, and
    /// its username reserved (``Limits/deletedUsernameReservedDays``); its rows and files go in the background.
    package func deleteAccount(user: UserSummary, password: String, address: String?) async throws {
        try await verifyPassword(password, of: user, field: "password", address: address)
        let reserved = Date().addingTimeInterval(Double(Limits.deletedUsernameReservedDays) * 86_400)
        try await store.beginAccountDeletion(userID: user.id, reserveUsernameUntil: reserved)
        core.deletion.wake()
    }

    /// Deletes the account of someone elsewhere whose server says it is gone: hidden at once, its likes, comments,
    /// follows and posts here removed in the background as a deleted account's are (counts stay exact).
    package func deleteRemoteAccount(user: Int64) async throws {
        try await store.beginAccountDeletion(userID: user, reserveUsernameUntil: Date())
        core.deletion.wake()
    }

    /// A new single-use ticket for opening the event stream under the session `tokenHash`, and when it expires.
    package func issueTicket(user: Int64, tokenHash: [UInt8]) async throws -> EventTicket {
        try protection.take(.tickets, user: user)
        let ticket = SessionToken.generate()
        let expiresAt = Date().addingTimeInterval(Self.ticketLifetime)
        try await store.createEventTicket(
            ticketHash: SessionToken.hash(ticket), tokenHash: tokenHash, expiresAt: expiresAt)
        return EventTicket(ticket: ticket, expiresAt: expiresAt)
    }

    /// The user and session of a live ticket, which is used up; nil for an unknown, used or expired one.
    package func redeemTicket(_ ticket: String) async throws -> (user: UserSummary, tokenHash: [UInt8])? {
        guard ticket.utf8.count <= 512 else { return nil }
        return try await store.redeemEventTicket(ticketHash: SessionToken.hash(ticket))
    }

    /// Whom a bearer token's hash speaks for, noting (at most once a minute, by the store) that it was used by
    /// `client`.
    package func authenticate(tokenHash: [UInt8]) async throws -> SessionIdentity? {
        try await store.session(tokenHash: tokenHash)
    }

    /// Notes that a session was used now, by `client` (shown in the owner's list of sessions).
    package func noteUse(tokenHash: [UInt8], client: SessionClient) async throws {
        try await store.touchSession(tokenHash: tokenHash, client: client)
    }

    /// Marks the user's activity up to `through` (nil: all) as read; answers how many stay unread.
    package func markActivityRead(userID: Int64, through: Int64?) async throws -> Int {
        if let through, through < 0 {
            throw UseCaseError.invalidField(field: "through", reason: "must be an activity ID (0 or more)")
        }
        return try await store.markActivityRead(userID: userID, through: through)
    }

    private func startSession(_ userID: Int64, client: SessionClient) async throws -> String {
        let token = SessionToken.generate()
        try await store.createSession(userID: userID, tokenHash: SessionToken.hash(token), client: client)
        return token
    }
}

/// Made once per process: checking a log-in for an unknown user costs one bcrypt verification, as for a known one.
enum DecoyPassword {
    static let hash = Bcrypt.hash(SessionToken.generate(), cost: 10)
}

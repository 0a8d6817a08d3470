import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdBcrypt
import MakestagramAPI
import MakestagramLive
import MakestagramStore

/// Sign-up, log-in, log-out and the current user.
struct AccountsController<S: Store>: Sendable {
    let store: S
    let limits: ClientLimits
    /// bcrypt work factor; 10 or more.
    let bcryptCost: UInt8
    /// Finishes deleting accounts in the background.
    let deletion: any AccountDeletionTrigger

    /// Routes that need no token.
    var publicRoutes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.post("accounts", use: signUp)
        routes.post("sessions", use: logIn)
        return routes
    }

    /// Routes for a logged-in user.
    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.delete("sessions/current", use: logOut)
        routes.get("me", use: me)
        routes.get("me/sessions", use: sessions)
        routes.delete("me/sessions/:session", use: endSession)
        routes.post("me/password", use: changePassword)
        routes.post("me/password/check", use: checkPassword)
        routes.post("me/delete", use: deleteAccount)
        return routes
    }

    @Sendable func signUp(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<AuthResponse> {
        let input = try await request.decodeJSON(SignUpRequest.self)
        let username = try TextInput.username(input.username, registering: true)
        try TextInput.newPassword(input.password, username: username)
        let displayName = try TextInput.displayName(input.displayName)
        try limits.take(.signUps, client: limits.address(of: request, context))
        let cost = bcryptCost
        let password = input.password
        let hash = try await limits.hash { Bcrypt.hash(password, cost: cost) }
        let user = try await store.createUser(
            NewUser(username: username, displayName: displayName, passwordHash: hash))
        let token = try await startSession(user.id, request, context)
        context.logger.info("account created", metadata: ["user": "\(user.id)"])
        return EditedResponse(status: .created, response: AuthResponse(user: user, token: token))
    }

    @Sendable func logIn(_ request: Request, context: AppRequestContext) async throws -> AuthResponse {
        let input = try await request.decodeJSON(LogInRequest.self)
        // A username or password of a shape nobody's can have is simply wrong: answered as such before any hashing,
        // and not counted as a failure.
        guard (try? TextInput.passwordShape(input.password)) != nil,
            let username = try? TextInput.username(input.username)
        else { throw APIError.invalidCredentials }
        let address = limits.address(of: request, context)
        if let wait = limits.logins.begin(username: username, address: address) {
            throw APIError.tooManyAttempts(retryAfter: wait.retryAfterSeconds)
        }
        var succeeded = false
        defer { limits.logins.finish(username: username, address: address, succeeded: succeeded) }
        let credentials = try await store.credentials(username: username)
        // An unknown user costs the same bcrypt check as a known one, so timing does not reveal which usernames exist.
        // (The decoy's own hash is made on first use, inside the hashing pool: never on an event loop.)
        let stored = credentials?.passwordHash
        let password = input.password
        let valid = try await limits.hash { Bcrypt.verify(password, hash: stored ?? Self.decoyHash) }
        guard valid, let credentials else { throw APIError.invalidCredentials }
        // Only once the password is right: nobody learns from a guess that an account is suspended.
        if credentials.status == .suspended {
            succeeded = true
            throw APIError.accountSuspended
        }
        guard let user = try await store.profile(id: credentials.userID, viewer: credentials.userID) else {
            throw APIError.invalidCredentials
        }
        succeeded = true
        return AuthResponse(user: user, token: try await startSession(user.id, request, context))
    }

    @Sendable func logOut(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        if let hash = context.tokenHash { try await store.deleteSession(tokenHash: hash) }
        return .noContent
    }

    @Sendable func me(_ request: Request, context: AppRequestContext) async throws -> UserProfile {
        let user = try context.requireUser()
        guard let profile = try await store.profile(id: user.id, viewer: user.id) else { throw APIError.unauthorized }
        return profile
    }

    /// The user's sessions, most recently used first, the current one marked.
    @Sendable func sessions(_ request: Request, context: AppRequestContext) async throws -> Page<SessionInfo> {
        let user = try context.requireUser()
        let sessions = try await store.sessions(userID: user.id).map { session in
            SessionInfo(
                id: SessionToken.publicID(session.tokenHash), createdAt: session.createdAt,
                lastUsedAt: session.lastUsedAt, userAgent: session.client.userAgent, address: session.client.address,
                current: session.tokenHash == context.tokenHash)
        }
        return Page(items: sessions, nextCursor: nil)
    }

    /// Logs out one of the user's sessions (the current one too): its token fails at once, on every instance, and
    /// its live connections close.
    @Sendable func endSession(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let user = try context.requireUser()
        let id = context.parameters.get("session") ?? ""
        guard
            let session = try await store.sessions(userID: user.id).first(where: {
                SessionToken.publicID($0.tokenHash) == id
            })
        else { throw APIError.notFound("session") }
        try await store.deleteSession(tokenHash: session.tokenHash)
        context.logger.info("session ended by its user", metadata: ["user": "\(user.id)"])
        return .noContent
    }

    /// Changes the password, given the current one, and logs out every other session. Wrong current passwords count
    /// as failed log-ins (the same throttle), so this is no way around it.
    @Sendable func changePassword(_ request: Request, context: AppRequestContext) async throws -> PasswordChanged {
        let user = try context.requireUser()
        guard let current = context.tokenHash else { throw APIError.unauthorized }
        let input = try await request.decodeJSON(ChangePasswordRequest.self)
        try TextInput.newPassword(input.newPassword, username: user.username, field: "newPassword")
        guard input.newPassword != input.currentPassword else {
            throw APIError.invalidField(field: "newPassword", reason: "is the password you have: choose another")
        }
        try await verifyPassword(input.currentPassword, of: user, field: "currentPassword", request, context)
        let cost = bcryptCost
        let newPassword = input.newPassword
        let hash = try await limits.hash { Bcrypt.hash(newPassword, cost: cost) }
        let ended = try await store.changePassword(userID: user.id, passwordHash: hash, keeping: current)
        context.logger.notice("password changed", metadata: ["user": "\(user.id)", "ended sessions": "\(ended)"])
        return PasswordChanged(endedSessions: ended)
    }

    /// Checks the password before an action that will need it (the web client asks before it asks "Delete your
    /// account for good?", so that a wrong password is said first). Counted as a log-in attempt, like every check.
    @Sendable func checkPassword(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let user = try context.requireUser()
        let input = try await request.decodeJSON(CheckPasswordRequest.self)
        try await verifyPassword(input.password, of: user, field: "password", request, context)
        return .noContent
    }

    /// Deletes the account, given its password: at once it is hidden from everyone and logged out everywhere, and
    /// its username reserved (``Limits/deletedUsernameReservedDays``); its rows and files go in the background
    /// (``AccountDeletion``). Answers 202.
    @Sendable func deleteAccount(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let user = try context.requireUser()
        let input = try await request.decodeJSON(DeleteAccountRequest.self)
        try await verifyPassword(input.password, of: user, field: "password", request, context)
        let reserved = Date().addingTimeInterval(Double(Limits.deletedUsernameReservedDays) * 86_400)
        try await store.beginAccountDeletion(userID: user.id, reserveUsernameUntil: reserved)
        deletion.wake()
        context.logger.notice("account deletion begun", metadata: ["user": "\(user.id)"])
        return .accepted
    }

    /// Checks the logged-in user's password for an action that needs it. A wrong one counts as a failed log-in
    /// (the same throttle), so this is no way around it, and is answered as a 422 on `field`.
    private func verifyPassword(
        _ password: String, of user: UserSummary, field: String, _ request: Request, _ context: AppRequestContext
    ) async throws {
        // A password of a shape nobody's can have is not theirs either: said so, before any hashing.
        guard (try? TextInput.passwordShape(password)) != nil else {
            throw APIError.invalidField(field: field, reason: "is not your current password")
        }
        let address = limits.address(of: request, context)
        if let wait = limits.logins.begin(username: user.username, address: address) {
            throw APIError.tooManyAttempts(retryAfter: wait.retryAfterSeconds)
        }
        var succeeded = false
        defer { limits.logins.finish(username: user.username, address: address, succeeded: succeeded) }
        let stored = try await store.credentials(username: user.username)?.passwordHash
        guard let stored, try await limits.hash({ Bcrypt.verify(password, hash: stored) }) else {
            throw APIError.invalidField(field: field, reason: "is not your current password")
        }
        succeeded = true
    }

    private func startSession(_ userID: Int64, _ request: Request, _ context: AppRequestContext) async throws -> String
    {
        let token = SessionToken.generate()
        try await store.createSession(
            userID: userID, tokenHash: SessionToken.hash(token),
            client: SessionToken.client(of: request, address: limits.address(of: request, context)))
        return token
    }

    /// A bcrypt hash of a random string, checked against when the username is unknown.
    static var decoyHash: String { DecoyPassword.hash }
}

/// Made once per process: checking a log-in for an unknown user costs one bcrypt verification, as for a known one.
private enum DecoyPassword {
    static let hash = Bcrypt.hash(SessionToken.generate(), cost: 10)
}

import Foundation
import HTTPTypes
import Hummingbird
import MakestagramAPI
import MakestagramCore
import MakestagramStore

/// Sign-up, log-in, log-out, the current user, sessions, passwords and deleting the account: translations onto
/// ``Accounts``.
struct AccountsController<S: Store>: Sendable {
    let core: Core<S>
    let limits: ClientLimits

    var store: S { core.store }
    var accounts: Accounts<S> { core.accounts }

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
        let answer = try await accounts.signUp(
            username: input.username, password: input.password, displayName: input.displayName,
            client: limits.client(of: request, context))
        context.logger.info("account created", metadata: ["user": "\(answer.user.id)"])
        return EditedResponse(status: .created, response: answer)
    }

    @Sendable func logIn(_ request: Request, context: AppRequestContext) async throws -> AuthResponse {
        let input = try await request.decodeJSON(LogInRequest.self)
        return try await accounts.logIn(
            username: input.username, password: input.password, client: limits.client(of: request, context))
    }

    @Sendable func logOut(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        if let hash = context.tokenHash { try await accounts.logOut(tokenHash: hash) }
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
        try await accounts.endSession(userID: user.id, publicID: context.parameters.get("session") ?? "")
        context.logger.info("session ended by its user", metadata: ["user": "\(user.id)"])
        return .noContent
    }

    /// Changes the password, given the current one, and logs out every other session.
    @Sendable func changePassword(_ request: Request, context: AppRequestContext) async throws -> PasswordChanged {
        let user = try context.requireUser()
        guard let current = context.tokenHash else { throw APIError.unauthorized }
        let input = try await request.decodeJSON(ChangePasswordRequest.self)
        let changed = try await accounts.changePassword(
            user: user, keeping: current, current: input.currentPassword, new: input.newPassword,
            address: limits.address(of: request, context))
        context.logger.notice(
            "password changed", metadata: ["user": "\(user.id)", "ended sessions": "\(changed.endedSessions)"])
        return changed
    }

    /// Checks the password before an action that will need it (the web client asks before it asks "Delete your
    /// account for good?", so that a wrong password is said first). Counted as a log-in attempt, like every check.
    @Sendable func checkPassword(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let user = try context.requireUser()
        let input = try await request.decodeJSON(CheckPasswordRequest.self)
        try await accounts.verifyPassword(
            input.password, of: user, field: "password", address: limits.address(of: request, context))
        return .noContent
    }

    /// Deletes the account, given its password: at once it is hidden from everyone and logged out everywhere, and
    /// its username reserved (``Limits/deletedUsernameReservedDays``); its rows and files go in the background
    /// (``AccountDeletion``). Answers 202.
    @Sendable func deleteAccount(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let user = try context.requireUser()
        let input = try await request.decodeJSON(DeleteAccountRequest.self)
        try await accounts.deleteAccount(
            user: user, password: input.password, address: limits.address(of: request, context))
        context.logger.notice("account deletion begun", metadata: ["user": "\(user.id)"])
        return .accepted
    }
}

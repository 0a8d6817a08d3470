import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdBcrypt
import MakestagramAPI
import MakestagramStore
import NIOPosix

/// Sign-up, log-in, log-out and the current user.
struct AccountsController<S: Store>: Sendable {
    let store: S
    let throttle: LoginThrottle
    /// bcrypt work factor; 10 or more.
    let bcryptCost: UInt8

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
        return routes
    }

    @Sendable func signUp(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<AuthResponse> {
        let input = try await request.decodeJSON(SignUpRequest.self)
        let username = input.username.lowercased()
        guard Limits.isValidUsername(username) else {
            throw APIError.invalidField(
                field: "username", reason: "use 3 to 30 characters: lower-case letters, digits, '_' and '.'")
        }
        guard Limits.passwordBytes.contains(input.password.utf8.count) else {
            throw APIError.invalidField(field: "password", reason: "use 8 to 72 bytes")
        }
        let displayName = input.displayName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard Limits.displayNameLength.contains(displayName.unicodeScalars.count) else {
            throw APIError.invalidField(field: "displayName", reason: "use 1 to 50 characters")
        }
        let cost = bcryptCost
        let hash = try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(input.password, cost: cost) }
        let user = try await store.createUser(
            NewUser(username: username, displayName: displayName, passwordHash: hash))
        let token = try await startSession(user.id)
        context.logger.info("account created", metadata: ["user": "\(user.id)"])
        return EditedResponse(status: .created, response: AuthResponse(user: user, token: token))
    }

    @Sendable func logIn(_ request: Request, context: AppRequestContext) async throws -> AuthResponse {
        let input = try await request.decodeJSON(LogInRequest.self)
        let username = input.username.lowercased()
        if let seconds = throttle.retryAfter(username) { throw APIError.tooManyAttempts(retryAfter: seconds) }
        let credentials = try await store.credentials(username: username)
        // An unknown user costs the same bcrypt check as a known one, so timing does not reveal which usernames exist.
        let hash = credentials?.passwordHash ?? Self.decoyHash
        let password = input.password
        let valid = try await NIOThreadPool.singleton.runIfActive {
            password.utf8.count <= Limits.passwordBytes.upperBound && Bcrypt.verify(password, hash: hash)
        }
        guard valid, let credentials,
            let user = try await store.profile(id: credentials.userID, viewer: credentials.userID)
        else {
            throttle.recordFailure(username)
            throw APIError.invalidCredentials
        }
        throttle.recordSuccess(username)
        return AuthResponse(user: user, token: try await startSession(user.id))
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

    private func startSession(_ userID: Int64) async throws -> String {
        let token = SessionToken.generate()
        try await store.createSession(userID: userID, tokenHash: SessionToken.hash(token))
        return token
    }

    /// A bcrypt hash of a random string, checked against when the username is unknown.
    static var decoyHash: String { DecoyPassword.hash }
}

/// Made once per process: checking a log-in for an unknown user costs one bcrypt verification, as for a known one.
private enum DecoyPassword {
    static let hash = Bcrypt.hash(SessionToken.generate(), cost: 10)
}

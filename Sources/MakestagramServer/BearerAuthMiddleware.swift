import HTTPTypes
import Hummingbird
import MakestagramStore

/// Requires `Authorization: Bearer <token>` naming a live session, and puts its user into the context.
struct BearerAuthMiddleware<S: Store>: RouterMiddleware {
    typealias Context = AppRequestContext
    let store: S

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard let token = Self.bearerToken(request.headers) else { throw APIError.unauthorized }
        let hash = SessionToken.hash(token)
        guard let user = try await store.sessionUser(tokenHash: hash) else { throw APIError.unauthorized }
        var context = context
        context.user = user
        context.tokenHash = hash
        context.logger[metadataKey: "user"] = "\(user.id)"
        return try await next(request, context)
    }

    /// The token of an `Authorization: Bearer …` header, if there is one.
    static func bearerToken(_ headers: HTTPFields) -> String? {
        guard let value = headers[.authorization] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty || token.count > 512 ? nil : token
    }
}

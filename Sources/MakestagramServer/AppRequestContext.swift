import Hummingbird
import MakestagramAPI

/// The request context of every route: Hummingbird's core storage plus the authenticated user, if any.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by ``BearerAuthMiddleware`` on authenticated routes.
    public var user: UserSummary?
    /// The hash of the bearer token the request came with, so that logging out can end exactly this session.
    public var tokenHash: [UInt8]?

    public init(source: Source) {
        self.coreContext = .init(source: source)
    }

    /// The authenticated user; throws 401 on a route where the auth middleware did not set one.
    func requireUser() throws -> UserSummary {
        guard let user else { throw APIError.unauthorized }
        return user
    }
}

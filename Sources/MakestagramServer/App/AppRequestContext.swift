import Foundation
import Hummingbird
import MakestagramAPI
import NIOCore
import Synchronization

/// The request context of every route: Hummingbird's core storage plus the authenticated user, if any.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by ``BearerAuthMiddleware`` on authenticated routes.
    public var user: UserSummary?
    /// The hash of the bearer token the request came with, so that logging out can end exactly this session.
    public var tokenHash: [UInt8]?
    /// Who the request turned out to be from, for the access-log line: the context that middleware further out
    /// holds is a copy made before authentication, so the authenticated user is noted here as well.
    let requester = Requester()
    /// The connection, for the client's address (read only where a limit needs it).
    let channel: any Channel

    public init(source: Source) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    /// The address of the socket's peer (a reverse proxy, if there is one; see ``TrustedProxies``).
    var remoteAddress: SocketAddress? { channel.remoteAddress }

    /// Answers' JSON as the API writes it (``JSONCoding/encoder()``).
    public var responseEncoder: JSONEncoder { JSONCoding.encoder() }

    /// The authenticated user; throws 401 on a route where the auth middleware did not set one.
    func requireUser() throws -> UserSummary {
        guard let user else { throw APIError.unauthorized }
        return user
    }
}

/// The authenticated user's ID of one request (0 until authentication), shared by every copy of its context.
final class Requester: Sendable {
    private let id = Atomic<Int64>(0)

    /// The authenticated user's ID, if the request has been authenticated.
    var userID: Int64? {
        let id = id.load(ordering: .relaxed)
        return id == 0 ? nil : id
    }

    func authenticated(as userID: Int64) {
        id.store(userID, ordering: .relaxed)
    }
}

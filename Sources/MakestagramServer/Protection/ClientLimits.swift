import Hummingbird
import MakestagramLive
import NIOCore

/// Everything that keeps one client from taking more than its share: the rate limits, the log-in throttle, the cap
/// on concurrent password hashing and the rule for reading client addresses. One per server instance.
final class ClientLimits: Sendable {
    /// What each limit is about, in words for the 429 answer.
    enum Kind: Int, Sendable {
        case signUps, posts, edits, comments, likes, follows, reports, exports, tickets, sockets

        var keyPath: KeyPath<RateLimits, RateLimit?> {
            switch self {
            case .signUps: \.signUps
            case .posts: \.posts
            case .edits: \.edits
            case .comments: \.comments
            case .likes: \.likes
            case .follows: \.follows
            case .reports: \.reports
            case .exports: \.exports
            case .tickets: \.tickets
            case .sockets: \.sockets
            }
        }

        var noun: String {
            switch self {
            case .signUps: "sign-ups from this address"
            case .posts: "posts"
            case .edits: "edits"
            case .comments: "comments"
            case .likes: "likes"
            case .follows: "follows"
            case .reports: "reports"
            case .exports: "data exports"
            case .tickets: "event-stream tickets"
            case .sockets: "event-stream connections"
            }
        }
    }

    let rates: RateLimits
    let proxies: TrustedProxies
    let logins: LoginThrottle
    private let limiter = RateLimiter()
    /// The threads that hash passwords, for log-ins and sign-ups (see ``HashingPool``).
    let hashing: HashingPool

    init(
        rates: RateLimits, proxies: TrustedProxies, logins: LoginThrottle = LoginThrottle(), hashingConcurrency: Int
    ) {
        self.rates = rates
        self.proxies = proxies
        self.logins = logins
        self.hashing = HashingPool(threads: hashingConcurrency)
    }

    /// The client's address (see ``TrustedProxies``).
    func address(of request: Request, _ context: AppRequestContext) -> String {
        proxies.client(peer: context.remoteAddress, headers: request.headers)
    }

    /// The origin the client reached the server at (`https://host` behind a trusted proxy that terminates TLS), for
    /// the absolute URLs that OAuth metadata and Mastodon's entities carry.
    func origin(of request: Request, _ context: AppRequestContext) -> String {
        origin(of: request, peer: context.remoteAddress)
    }

    func origin(of request: Request, peer: SocketAddress?) -> String {
        let scheme = proxies.isHTTPS(peer: peer, headers: request.headers) ? "https" : "http"
        return "\(scheme)://\(request.head.authority ?? "127.0.0.1")"
    }

    /// Takes one action of `kind` for `client`; throws 429 with when to retry when the client has used its share.
    func take(_ kind: Kind, client: String) throws {
        if let wait = limiter.take(rates[keyPath: kind.keyPath], kind: kind.rawValue, client: client) {
            throw APIError.rateLimited(what: kind.noun, retryAfter: wait.retryAfterSeconds)
        }
    }

    /// Takes one action of `kind` for the user `id`.
    func take(_ kind: Kind, user id: Int64) throws {
        try take(kind, client: String(id))
    }

    /// Runs password hashing `body` on the hashing threads; 503 when too many already wait.
    func hash<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws -> T {
        guard let result = try await hashing.run(body) else { throw APIError.busy(retryAfter: 1) }
        return result
    }
}

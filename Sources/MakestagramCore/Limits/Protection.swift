import MakestagramAPI

/// What keeps one person from taking more than their share, whatever door they come through: the rate limits, the
/// log-in throttle and the cap on concurrent password hashing. One per server instance; each use case takes its limit
/// once, so that an action costs the same through the native API, the Mastodon API or another server.
package final class Protection: Sendable {
    /// What each limit is about, in words for the refusal.
    package enum Kind: Int, Sendable {
        case signUps, posts, edits, comments, likes, follows, reports, exports, tickets, sockets, inbox

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
            case .inbox: \.inbox
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
            case .inbox: "activities from this server"
            }
        }
    }

    package let rates: RateLimits
    package let logins: LoginThrottle
    private let limiter = RateLimiter()
    /// The threads that hash passwords, for log-ins and sign-ups (see ``HashingPool``).
    package let hashing: HashingPool

    package init(rates: RateLimits, logins: LoginThrottle = LoginThrottle(), hashingConcurrency: Int) {
        self.rates = rates
        self.logins = logins
        self.hashing = HashingPool(threads: hashingConcurrency)
    }

    /// Takes one action of `kind` for `client` (an address, or a user's ID); throws
    /// ``UseCaseError/rateLimited(what:retryAfter:)`` when the client has used its share.
    package func take(_ kind: Kind, client: String) throws {
        if let wait = limiter.take(rates[keyPath: kind.keyPath], kind: kind.rawValue, client: client) {
            throw UseCaseError.rateLimited(what: kind.noun, retryAfter: wait.retryAfterSeconds)
        }
    }

    /// Takes one action of `kind` for the user `id`.
    package func take(_ kind: Kind, user id: Int64) throws {
        try take(kind, client: String(id))
    }

    /// Runs password hashing `body` on the hashing threads; ``UseCaseError/busy(retryAfter:)`` when too many wait.
    package func hash<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws -> T {
        guard let result = try await hashing.run(body) else { throw UseCaseError.busy(retryAfter: 1) }
        return result
    }
}

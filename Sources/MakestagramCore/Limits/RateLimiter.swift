import MakestagramAPI
import Synchronization

/// The limits the server applies, each per client (a user, or an address where nobody is logged in yet); nil
/// turns one off. Kept in memory by each instance.
public struct RateLimits: Sendable, Equatable {
    /// Accounts created from one address.
    public var signUps: RateLimit? = RateLimit(10, per: .seconds(3600))
    /// Photos posted by one user.
    public var posts: RateLimit? = RateLimit(60, per: .seconds(3600))
    /// Captions and profiles edited by one user.
    public var edits: RateLimit? = RateLimit(60, per: .seconds(3600))
    /// Comments written by one user.
    public var comments: RateLimit? = RateLimit(30, per: .seconds(60))
    /// Likes and unlikes by one user.
    public var likes: RateLimit? = RateLimit(120, per: .seconds(60))
    /// Follows and unfollows by one user.
    public var follows: RateLimit? = RateLimit(200, per: .seconds(3600))
    /// Reports filed by one user.
    public var reports: RateLimit? = RateLimit(20, per: .seconds(3600))
    /// Archives of their data downloaded by one user (each reads every photo they posted).
    public var exports: RateLimit? = RateLimit(3, per: .seconds(3600))
    /// Event-stream tickets issued to one user.
    public var tickets: RateLimit? = RateLimit(30, per: .seconds(60))
    /// Event-stream connections opened by one user.
    public var sockets: RateLimit? = RateLimit(30, per: .seconds(60))
    /// The work one event-stream connection may ask for: one per message and one per post it newly subscribes to
    /// (``LiveOptions/work``).
    public var liveWork: RateLimit? = LiveProtocol.defaultWork
    /// Activities taken at the inboxes from one other server (its origin, once their signature is checked), whoever
    /// of its people sent them: a flood from one server is refused (429) before it reaches the use cases.
    public var inbox: RateLimit? = RateLimit(1200, per: .seconds(60))
    /// Event-stream connections one user may hold open at once.
    public var maxSocketsPerUser = 20

    public init() {}

    /// Every limit off (for load tests and benchmarks), including the sockets a user may hold at once.
    public static var unlimited: RateLimits {
        var limits = RateLimits()
        _ = limits.apply("all=off")
        return limits
    }

    /// The names used by `--rate-limit NAME=COUNT/PERIOD`.
    public static let names = [
        "signups", "posts", "edits", "comments", "likes", "follows", "reports", "exports", "tickets", "sockets",
        "live-work", "inbox",
    ]

    /// The limit a name sets.
    package static func keyPath(named name: some StringProtocol) -> WritableKeyPath<RateLimits, RateLimit?>? {
        switch name {
        case "signups": \.signUps
        case "posts": \.posts
        case "edits": \.edits
        case "comments": \.comments
        case "likes": \.likes
        case "follows": \.follows
        case "reports": \.reports
        case "exports": \.exports
        case "tickets": \.tickets
        case "sockets": \.sockets
        case "live-work": \.liveWork
        case "inbox": \.inbox
        default: nil
        }
    }

    /// Applies `NAME=COUNT/PERIOD`, `NAME=off` or `all=off` (every limit, and the cap on sockets per user); false
    /// when the text is not one of those.
    public mutating func apply(_ setting: String) -> Bool {
        let parts = setting.split(separator: "=", maxSplits: 1)
        if setting == "all=off" {
            for name in Self.names { _ = apply("\(name)=off") }
            maxSocketsPerUser = .max
            return true
        }
        guard parts.count == 2, let keyPath = Self.keyPath(named: parts[0]) else { return false }
        if parts[1] == "off" {
            self[keyPath: keyPath] = nil
            return true
        }
        guard let limit = RateLimit(parsing: parts[1]) else { return false }
        self[keyPath: keyPath] = limit
        return true
    }
}

/// Token buckets: each client starts with `count` tokens and gets them back at `count` per `period`; an action
/// takes one. Buckets that have filled up again are forgotten, so memory follows the clients active lately.
package final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
        /// When it will be full again if left alone.
        var full: ContinuousClock.Instant
    }

    private struct Key: Hashable {
        let kind: Int
        let client: String
    }

    private struct Table {
        var buckets: [Key: Bucket] = [:]
        /// Swept for full buckets when it grows past this (twice what a sweep leaves, so sweeping stays rare).
        var sweepAt = 4096
    }

    private final class Shard: Sendable {
        let table = Mutex(Table())
    }

    /// Sixteen independent tables, so that unrelated clients rarely wait for each other's lock.
    private let shards: [Shard] = (0..<16).map { _ in Shard() }

    /// Takes one token of `limit` for `client` (`kind` separates the limits). Answers nil when allowed, or how
    /// long to wait until a token is back.
    package func take(_ limit: RateLimit?, kind: Int, client: String, now: ContinuousClock.Instant = .now) -> Duration?
    {
        guard let limit else { return nil }
        let key = Key(kind: kind, client: client)
        let rate = Double(limit.count) / limit.period.seconds
        return shards[abs(key.hashValue % shards.count)].table.withLock { table in
            var bucket = table.buckets[key] ?? Bucket(tokens: Double(limit.count), updated: now, full: now)
            bucket.tokens = min(Double(limit.count), bucket.tokens + (now - bucket.updated).seconds * rate)
            bucket.updated = now
            guard bucket.tokens >= 1 else {
                table.buckets[key] = bucket
                return .seconds((1 - bucket.tokens) / rate)
            }
            bucket.tokens -= 1
            bucket.full = now + .seconds((Double(limit.count) - bucket.tokens) / rate)
            if table.buckets.count >= table.sweepAt {
                // A bucket that is full again is the same as none.
                table.buckets = table.buckets.filter { $0.value.full > now }
                table.sweepAt = max(4096, table.buckets.count * 2)
            }
            table.buckets[key] = bucket
            return nil
        }
    }
}

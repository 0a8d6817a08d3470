import Foundation
import Logging
import MakestagramAPI
import MakestagramCore
import MakestagramStorePostgres

/// Everything `makestagram serve` can be told.
public struct ServerConfiguration: Sendable {
    /// The address to listen on.
    public var host = "127.0.0.1"
    /// The port to listen on; 0 picks a free one.
    public var port = 8080
    /// Where the database and media live.
    public var dataDirectory = URL(fileURLWithPath: "makestagram-data")
    /// A PostgreSQL database shared by every instance (`postgres://user:password@host:5432/database`); nil keeps the
    /// SQLite database in ``dataDirectory``. Media stay in ``dataDirectory`` either way (a folder every instance
    /// shares).
    public var database: PostgresOptions?
    /// The largest upload body, in bytes.
    public var maxUploadBytes = 20 * 1024 * 1024
    /// The most photos a post may hold (1 to ``Post/photoLimitCeiling``).
    public var maxPhotosPerPost = Post.photoLimit
    /// The most pixels an uploaded image may have.
    public var maxPixels = 50_000_000
    /// How many uploads are decoded at once (each may need ~4 bytes per pixel of memory).
    public var imageConcurrency = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// The bcrypt work factor for new passwords (at least 10).
    public var bcryptCost: UInt8 = 10
    /// Seeds demo users, follows, posts, likes and comments (once).
    public var demo = false
    /// How many messages may wait for one event-stream client before it is closed with the resync code.
    public var liveQueueLimit = 1024
    /// How long a client being closed gets to read what is on its way and the close frame before its socket is cut.
    public var liveCloseGrace: Duration = .seconds(10)
    /// How often the server pings each event-stream client; one that has not answered by the next ping is closed.
    public var livePingInterval: Duration = .seconds(30)
    /// How often each client may sign up, post, comment, like, follow, report and open the event stream.
    public var rateLimits = RateLimits()
    /// How many failed log-ins are allowed before each further attempt from there waits, and how long at most.
    public var loginThrottle = LoginThrottlePolicy()
    /// Reverse proxies whose `X-Forwarded-For` names the client (none: the socket's peer is the client).
    public var trustedProxies = TrustedProxies()
    /// Connection cap and per-phase timeouts.
    public var connections = ConnectionLimits()
    /// The least severe log level written.
    public var logLevel: Logger.Level = .info
    /// The origin this server is known by in the fediverse (`https://example.social`); federation is on when set.
    public var publicURL: URL?
    /// Whether other servers on loopback, private and link-local addresses may be reached, over plain HTTP too
    /// (tests and closed networks).
    public var allowPrivatePeers = false
    /// How long, in seconds, another server may fail without answering once before deliveries to it are no longer
    /// tried until it sends something.
    public var stopTryingServersAfter = 7 * 86_400
    /// The most bytes of other servers' photos kept (0: no limit), and the longest each is kept, in seconds (0: no
    /// limit); what is over is removed, the longest kept first, and fetched again when asked for.
    public var remoteMediaBudget = 0
    public var remoteMediaMaxAge = 0
    /// How the kernel schedules the server's threads (``CPUScheduling``); nil leaves it to the store
    /// (``threadScheduling``).
    public var cpuScheduling: CPUScheduling?

    public init() {}

    /// The policy the server's threads run under: as set, or else `batch` on SQLite and `normal` on PostgreSQL. On
    /// SQLite the writer runs on the server's own cores and batch scheduling spares it interruptions; on PostgreSQL
    /// the server waits for the database's answers, and batch scheduling measured no better (``CPUScheduling``).
    public var threadScheduling: CPUScheduling { cpuScheduling ?? (database == nil ? .batch : .normal) }

    /// The SQLite file inside the data folder.
    var databasePath: String { dataDirectory.appendingPathComponent("makestagram.sqlite").path }
    /// The media folder inside the data folder.
    var mediaDirectory: URL { dataDirectory.appendingPathComponent("media", isDirectory: true) }
}

import Foundation
import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How many connections the server holds and how long each may take over each part of a request.
///
/// A client that opens connections and sends nothing, sends half a request head, or trickles a body must not be
/// able to hold the server's file descriptors: every phase of a connection has a deadline (see
/// ``ConnectionGuard``), and above ``maxConnections`` new connections are answered 503 and closed at once while
/// the ones already open are served.
public struct ConnectionLimits: Sendable, Equatable {
    /// The most connections open at once (HTTP and WebSocket together); nil derives it from the file-descriptor
    /// limit, leaving room for the database, media files and the runtime (see ``effectiveMaxConnections``).
    public var maxConnections: Int?
    /// From a connection's first byte (or from the accept, for a new connection) until its request head is
    /// complete.
    public var headTimeout: Duration = .seconds(15)
    /// Keep-alive: from the end of a response until the first byte of the next request.
    public var idleTimeout: Duration = .seconds(60)
    /// The slowest upload the server waits for: a request body may take ``headTimeout`` plus one second per this
    /// many bytes received.
    public var minBodyBytesPerSecond = 1024

    public init() {}

    /// File descriptors kept for everything but client connections: the SQLite connections and their journals,
    /// media files being written or read, event loops, the thread pool and standard streams.
    static func reservedDescriptors(limit: Int) -> Int {
        max(48, limit / 8)
    }

    /// ``maxConnections``, or what the process's descriptor limit leaves for connections.
    public var effectiveMaxConnections: Int {
        if let maxConnections { return maxConnections }
        let limit = Self.descriptorLimit()
        return max(1, limit - Self.reservedDescriptors(limit: limit))
    }

    /// The process's soft limit on open files.
    static func descriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return limit.rlim_cur >= rlim_t(1 << 20) ? 1 << 20 : Int(limit.rlim_cur)
    }

    /// Raises the soft limit on open files to the hard limit (at most 1,048,576), as a server that holds one
    /// descriptor per client should; answers the limit in force afterwards.
    @discardableResult
    public static func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return descriptorLimit() }
        let wanted = min(limit.rlim_max, rlim_t(1 << 20))
        if limit.rlim_cur < wanted {
            limit.rlim_cur = wanted
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return descriptorLimit()
    }
}

/// The server-wide count of open connections, shared by every connection's ``ConnectionGuard``.
final class ConnectionCounter: Sendable {
    let limit: Int
    private let open = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts a new connection; false (and not counted) when the server is full.
    func admit() -> Bool {
        let now = open.wrappingAdd(1, ordering: .relaxed).newValue
        guard now <= limit else {
            open.wrappingSubtract(1, ordering: .relaxed)
            refused.wrappingAdd(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func release() {
        open.wrappingSubtract(1, ordering: .relaxed)
    }

    /// Connections open now.
    var current: Int { open.load(ordering: .relaxed) }
    /// Connections refused because the server was full, since start.
    var refusedCount: Int { refused.load(ordering: .relaxed) }
}

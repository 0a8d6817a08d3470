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
    /// The most connections one client address may hold at once (an IPv6 client counts by its /64, which one
    /// machine usually holds whole); nil derives it from the server's cap (``effectiveMaxPerAddress``). Connections
    /// from a trusted proxy are not counted against it: behind a proxy, its own per-address limit (nginx's
    /// `limit_conn`) plays this part.
    public var maxPerAddress: Int?
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

    /// ``maxPerAddress``, or an eighth of the server's cap, between 8 and 128: far more than a browser's six
    /// connections and a few streams, or an office behind one address, and little enough that one address cannot
    /// take the server.
    public var effectiveMaxPerAddress: Int {
        maxPerAddress ?? min(128, max(8, effectiveMaxConnections / 8))
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

/// The server-wide count of open connections, and the count per client address, shared by every connection's
/// ``ConnectionGuard``.
final class ConnectionCounter: Sendable {
    let limit: Int
    let perAddress: Int
    /// Peers not counted per address (trusted proxies: many clients arrive through each).
    let exempt: TrustedProxies
    private let open = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)
    private let byAddress = Mutex<[AddressKey: Int]>([:])

    /// Who a connection is counted as: an IPv4 address, or an IPv6 address's /64 (IPv4-mapped ones as IPv4).
    struct AddressKey: Hashable, Sendable {
        let bytes: [UInt8]

        init?(_ address: SocketAddress?) {
            guard let text = address?.ipAddress, let bytes = TrustedProxies.bytes(text) else { return nil }
            self.bytes = bytes.count == 16 ? Array(bytes[0..<8]) : bytes
        }
    }

    /// Why a connection was refused.
    enum Refusal: Sendable, Equatable {
        /// The server holds ``ConnectionCounter/limit`` connections.
        case serverFull
        /// The client's address holds ``ConnectionCounter/perAddress`` connections.
        case addressFull
    }

    init(limit: Int, perAddress: Int = .max, exempt: TrustedProxies = TrustedProxies()) {
        self.limit = limit
        self.perAddress = perAddress
        self.exempt = exempt
    }

    /// Counts a new connection from `peer`: nil when admitted (then ``release(_:)`` it with the key answered by
    /// ``key(for:)``), or why not (and nothing is counted).
    func admit(_ key: AddressKey?) -> Refusal? {
        if let key {
            let admitted = byAddress.withLock { counts -> Bool in
                let count = counts[key, default: 0]
                guard count < perAddress else { return false }
                counts[key] = count + 1
                return true
            }
            guard admitted else {
                refused.wrappingAdd(1, ordering: .relaxed)
                return .addressFull
            }
        }
        let now = open.wrappingAdd(1, ordering: .relaxed).newValue
        guard now <= limit else {
            open.wrappingSubtract(1, ordering: .relaxed)
            refused.wrappingAdd(1, ordering: .relaxed)
            if let key { releaseAddress(key) }
            return .serverFull
        }
        return nil
    }

    /// The key `peer` is counted under, or nil when it is not counted per address (a trusted proxy, or no address).
    func key(for peer: SocketAddress?) -> AddressKey? {
        guard perAddress != .max, let peer, !(peer.ipAddress.map(exempt.contains) ?? false) else { return nil }
        return AddressKey(peer)
    }

    /// A connection admitted under `key` closed.
    func release(_ key: AddressKey?) {
        open.wrappingSubtract(1, ordering: .relaxed)
        if let key { releaseAddress(key) }
    }

    private func releaseAddress(_ key: AddressKey) {
        byAddress.withLock { counts in
            let count = counts[key, default: 1] - 1
            counts[key] = count > 0 ? count : nil
        }
    }

    /// Connections open now.
    var current: Int { open.load(ordering: .relaxed) }
    /// Connections refused because the server was full, since start.
    var refusedCount: Int { refused.load(ordering: .relaxed) }
}

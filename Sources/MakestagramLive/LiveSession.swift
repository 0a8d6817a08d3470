import Foundation
import Logging
import MakestagramAPI
import NIOCore
import NIOFoundationCompat
import NIOWebSocket
import WSCore

/// What one event-stream connection may do and how it is treated when it falls behind.
public struct LiveOptions: Sendable {
    /// How many messages may wait for the client before it is closed with ``LiveCloseCode/resync``.
    public var queueLimit = 1024
    /// How long a client being closed gets to read what is on its way and the close frame before its socket is cut.
    public var closeGrace: Duration = .seconds(10)
    /// Connections one user may hold at once.
    public var maxSocketsPerUser = 20
    /// The work a client may ask for (nil: no limit): each message costs one, and each post it newly subscribes to
    /// one more (a snapshot to read and send). Counted in work, not messages, so that a client that coalesces
    /// (one subscribe for a whole page) and one that does not are treated alike, and no ordinary screen (a feed of
    /// 100 cards, a profile of 500 posts, fast scrolling) comes near it.
    public var work: RateLimit? = LiveProtocol.defaultWork
    /// Whether finished frames may be written straight below the frame encoder (``WireFrame``): true only when the
    /// server negotiates no WebSocket extension. With an extension (per-message deflate) every frame goes through
    /// the WebSocket library's outbound writer, which applies it.
    public var directWrites = true
    /// The kernel's send buffer for the socket, in bytes (nil: the kernel's own, which Linux grows up to
    /// `tcp_wmem`'s maximum, 4 MiB by default). A fixed size bounds the kernel memory a client that stops reading
    /// can hold, and lets the server see it fall behind after about this much instead of after megabytes.
    public var sendBuffer: Int? = 64 * 1024

    public init() {}
}

/// Reads a post's current state for a subscribe: the posts among `ids` that exist, as `viewer` sees them.
public typealias SnapshotReader = @Sendable (_ ids: [Int64], _ viewer: Int64) async throws -> [Post]

/// Reads everyone a user blocks or is blocked by (ID and username): what the user's socket is never to show.
public typealias PartnerReader = @Sendable (_ user: Int64) async throws -> [Int64: String]

/// One socket of the event stream, from hello to close: reads the client's subscribe and unsubscribe messages while
/// its writer task sends what the hub delivers. The only way a connection is attached to a ``LiveHub``.
public struct LiveSession: Sendable {
    let hub: LiveHub
    let user: UserSummary
    let tokenHash: [UInt8]
    let channel: any Channel
    let options: LiveOptions
    let snapshots: SnapshotReader
    let partners: PartnerReader
    let logger: Logger

    /// A session for `user`, opened with the session whose token hashes to `tokenHash` (logging it out closes the
    /// socket), on `channel`.
    public init(
        hub: LiveHub, user: UserSummary, tokenHash: [UInt8], channel: any Channel, options: LiveOptions,
        logger: Logger, snapshots: @escaping SnapshotReader, partners: @escaping PartnerReader = { _ in [:] }
    ) {
        self.partners = partners
        self.hub = hub
        self.user = user
        self.tokenHash = tokenHash
        self.channel = channel
        self.options = options
        self.snapshots = snapshots
        self.logger = logger
    }

    /// Serves the socket until it closes. A user over ``LiveOptions/maxSocketsPerUser`` is closed at once with
    /// ``LiveCloseCode/tryAgainLater``.
    public func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        if let size = options.sendBuffer {
            // Setting it turns off the kernel's growing of this socket's buffer.
            try? await channel.setOption(.socketOption(.so_sndbuf), value: SocketOptionValue(size))
        }
        let connection = LiveConnection(
            user: user, tokenHash: tokenHash, queueLimit: options.queueLimit, channel: channel,
            closeGrace: .nanoseconds(Int64(options.closeGrace / .nanoseconds(1))), directWrites: options.directWrites)
        // The hello is the first message: sent as the hub admits the connection, before anything can be delivered
        // to it (an event committed while the block partners are read below, such as the user's own post arriving
        // from another instance, comes after it). A connection over the cap gets only the close.
        let hello = LiveHello(
            protocol: LiveProtocol.version, user: user, maxSubscriptions: LiveProtocol.maxSubscriptions)
        guard hub.register(connection, maxPerUser: options.maxSocketsPerUser, first: { connection.send(.hello(hello)) })
        else {
            return try await outbound.close(
                WebSocketErrorCode(codeNumber: Int(LiveCloseCode.tryAgainLater)),
                reason: "at most \(options.maxSocketsPerUser) connections per user; close one first")
        }
        defer { hub.unregister(connection) }
        // Read once registered: a block committed before is in what is read, and one committed after closes the
        // socket (the hub closes both people's sockets on a block), so the set stays true while the socket lives.
        do {
            connection.hide(try await partners(user.id))
        } catch {
            logger.error("reading block partners failed", metadata: ["error": "\(error)"])
            return try await outbound.close(
                WebSocketErrorCode(codeNumber: Int(LiveCloseCode.tryAgainLater)), reason: "try again shortly")
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while let frames = await connection.nextFrames() {
                    for frame in frames {
                        // Through the library's writer, which applies any negotiated extension.
                        try await outbound.write(
                            .custom(WebSocketFrame(fin: true, opcode: .text, data: WireFrame.payload(of: frame))))
                    }
                }
                if let close = connection.closeRequest {
                    try await outbound.close(WebSocketErrorCode(codeNumber: Int(close.code)), reason: close.reason)
                }
            }
            defer { connection.finish() }
            // The reading loop is one task: its budget needs no lock.
            var budget = options.work.map { TokenBucket($0) }
            for try await message in inbound.messages(maxSize: 64 * 1024) {
                await handle(message, on: connection, budget: &budget)
            }
        }
    }

    private func handle(_ message: WebSocketMessage, on connection: LiveConnection, budget: inout TokenBucket?) async {
        let data: Data
        switch message {
        case .text(let text): data = Data(text.utf8)
        case .binary(let buffer): data = Data(buffer: buffer)
        }
        guard let command = try? JSONDecoder().decode(LiveClientMessage.self, from: data) else {
            if let wait = budget?.take(1) { return connection.send(.error(Self.slowDown(wait, refused: nil))) }
            connection.send(
                .error(
                    LiveError(
                        code: .badMessage,
                        detail: #"Send {"type":"subscribe","posts":[IDs]} or {"type":"unsubscribe","posts":[IDs]}."#)))
            return
        }
        switch command {
        case .subscribe(let ids):
            if let wait = budget?.take(1 + connection.unsubscribed(among: ids)) {
                return connection.send(
                    .error(Self.slowDown(wait, refused: "subscribe", posts: connection.notSubscribed(among: ids))))
            }
            let (accepted, overCap) = connection.beginSubscribe(ids)
            if !overCap.isEmpty {
                connection.send(
                    .error(
                        LiveError(
                            code: .tooManySubscriptions,
                            detail:
                                "A connection follows at most \(LiveProtocol.maxSubscriptions) posts; unsubscribe first. "
                                + "Not subscribed: \(overCap.map(String.init).joined(separator: ", ")).",
                            refused: "subscribe", posts: overCap)))
            }
            guard !accepted.isEmpty || overCap.isEmpty else { return }
            hub.subscribe(connection, to: accepted)
            let posts: [Post]
            do {
                posts = try await snapshots(accepted, connection.user.id)
            } catch {
                logger.error("reading snapshots failed", metadata: ["error": "\(error)"])
                hub.unsubscribe(connection, from: connection.unsubscribe(accepted))
                connection.send(
                    .error(
                        LiveError(
                            code: .internalError, detail: "Subscribing failed; try again.", refused: "subscribe",
                            posts: accepted, retryAfter: 1)))
                return
            }
            let found = Set(posts.map(\.id))
            let unavailable = accepted.filter { !found.contains($0) }
            hub.unsubscribe(connection, from: unavailable)
            connection.completeSubscribe(found: posts, unavailable: unavailable)
        case .unsubscribe(let ids):
            if let wait = budget?.take(1) {
                return connection.send(
                    .error(Self.slowDown(wait, refused: "unsubscribe", posts: connection.subscribed(among: ids))))
            }
            hub.unsubscribe(connection, from: connection.unsubscribe(ids))
        }
    }

    /// The error that answers a message over its connection's budget; nothing was done. `posts` are those whose
    /// subscription the refused message would have changed.
    static func slowDown(_ wait: Duration, refused: String?, posts: [Int64]? = nil) -> LiveError {
        LiveError(
            code: .rateLimited,
            detail: "Too much asked in a short time; nothing was done. Try again in \(wait.retryAfterSeconds) s.",
            refused: refused, posts: posts, retryAfter: wait.retryAfterSeconds)
    }
}

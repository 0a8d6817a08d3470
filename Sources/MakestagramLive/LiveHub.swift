// MakestagramLive: the live-update engine. Committed changes go in through an EventBus; the LiveHub fans each one
// out to the WebSocket connections it concerns, each with its own bounded, coalescing outbox, so a slow client never
// slows another. A socket is attached with a LiveSession; nothing else is public.

import MakestagramAPI
import MakestagramStore
import Metrics
import ServiceLifecycle
import Synchronization

/// The in-process hub: knows which sockets want which posts and users, reads committed events from the
/// ``EventBus`` in order, and puts each into the outbox of every connection that may see it.
///
/// Events are encoded once per event (twice for likes: with and without the recipient's like), and fan-out never
/// waits for a socket.
public final class LiveHub: Service {
    private struct Registry {
        var byPost: [Int64: [ObjectIdentifier: LiveConnection]] = [:]
        var byUser: [Int64: [ObjectIdentifier: LiveConnection]] = [:]
        var connections = 0
        /// Open taps (Mastodon's streams) by user: they count against the same cap as the user's sockets.
        var tapsByUser: [Int64: Int] = [:]

        /// Every stream the user holds open: event-stream sockets and taps.
        func streams(of user: Int64) -> Int {
            (byUser[user]?.count ?? 0) + (tapsByUser[user] ?? 0)
        }
    }

    let bus: any EventBus
    private let registry = Mutex(Registry())
    private let taps = Mutex<[ObjectIdentifier: EventTap]>([:])
    private let connectionsGauge = Gauge(label: "makestagram_live_connections")
    private let deliveries = Counter(label: "makestagram_live_events_total")

    /// Whether a user's account is private (from the store's memory).
    let isPrivate: @Sendable (Int64) -> Bool

    /// A hub that fans out what `bus` publishes; `isPrivate` tells it whose posts are for their followers only.
    public init(bus: any EventBus, isPrivate: @escaping @Sendable (Int64) -> Bool = { _ in false }) {
        self.bus = bus
        self.isPrivate = isPrivate
    }

    /// Fans out events until the bus ends or the server shuts down.
    public func run() async throws {
        // Not `bus.events.cancelOnGracefulShutdown()`: that sequence hands every event from a task of its own to this
        // one, which showed as a tenth of the cooperative pool's time during like toggles.
        let events = bus.events
        await cancelWhenGracefulShutdown { [self] in
            for await event in events { fanOut(event) }
        }
    }

    // MARK: Registry

    /// Registers a connection, unless its user already holds `maxPerUser` streams, sockets and taps together (then
    /// false, and nothing changes). `first` runs once it is admitted and before anything can be delivered to it.
    func register(_ connection: LiveConnection, maxPerUser: Int = .max, first: () -> Void = {}) -> Bool {
        let count = registry.withLock { registry -> Int? in
            guard registry.streams(of: connection.user.id) < maxPerUser else { return nil }
            first()
            registry.byUser[connection.user.id, default: [:]][ObjectIdentifier(connection)] = connection
            registry.connections += 1
            return registry.connections
        }
        guard let count else { return false }
        connectionsGauge.record(count)
        return true
    }

    func unregister(_ connection: LiveConnection) {
        let posts = connection.subscribedPosts
        let count = registry.withLock { registry in
            let key = ObjectIdentifier(connection)
            registry.byUser[connection.user.id]?[key] = nil
            if registry.byUser[connection.user.id]?.isEmpty == true { registry.byUser[connection.user.id] = nil }
            for post in posts { Self.remove(key, post: post, from: &registry) }
            registry.connections -= 1
            return registry.connections
        }
        connectionsGauge.record(count)
    }

    /// Routes events about `posts` to the connection (which decides, from its own state, what to send).
    func subscribe(_ connection: LiveConnection, to posts: [Int64]) {
        guard !posts.isEmpty else { return }
        registry.withLock { registry in
            for post in posts { registry.byPost[post, default: [:]][ObjectIdentifier(connection)] = connection }
        }
    }

    func unsubscribe(_ connection: LiveConnection, from posts: [Int64]) {
        guard !posts.isEmpty else { return }
        registry.withLock { registry in
            for post in posts { Self.remove(ObjectIdentifier(connection), post: post, from: &registry) }
        }
    }

    private static func remove(_ key: ObjectIdentifier, post: Int64, from registry: inout Registry) {
        registry.byPost[post]?[key] = nil
        if registry.byPost[post]?.isEmpty == true { registry.byPost[post] = nil }
    }

    private func subscribers(of post: Int64) -> [LiveConnection] {
        registry.withLock { registry in registry.byPost[post].map { Array($0.values) } ?? [] }
    }

    private func connections(of users: [Int64]) -> [LiveConnection] {
        registry.withLock { registry in users.flatMap { registry.byUser[$0].map { Array($0.values) } ?? [] } }
    }

    // MARK: Taps

    /// A tap of the events that may concern `user` (see ``EventTap``), until ``untap(_:)``; it finishes when the
    /// session `tokenHash` ends, the account closes, or changes were missed. Nil when the user already holds
    /// `maxPerUser` streams (event-stream sockets and taps together).
    public func tap(user: Int64, tokenHash: [UInt8], maxPerUser: Int = .max) -> EventTap? {
        let admitted = registry.withLock { registry -> Bool in
            guard registry.streams(of: user) < maxPerUser else { return false }
            registry.tapsByUser[user, default: 0] += 1
            return true
        }
        guard admitted else { return nil }
        let tap = EventTap(user: user, tokenHash: tokenHash)
        taps.withLock { $0[ObjectIdentifier(tap)] = tap }
        return tap
    }

    /// Ends a tap and gives its place back (once, however often it is called).
    public func untap(_ tap: EventTap) {
        let removed = taps.withLock { $0.removeValue(forKey: ObjectIdentifier(tap)) != nil }
        tap.finish()
        guard removed else { return }
        registry.withLock { registry in
            let left = (registry.tapsByUser[tap.user] ?? 1) - 1
            registry.tapsByUser[tap.user] = left > 0 ? left : nil
        }
    }

    private func feedTaps(_ event: StoreEvent) {
        let all = taps.withLock { Array($0.values) }
        guard !all.isEmpty else { return }
        for tap in all {
            switch event {
            case .sessionEnded(let tokenHash) where tokenHash == tap.tokenHash: untap(tap)
            case .userRemoved(let user, _, _) where user == tap.user: untap(tap)
            case .changesMissed: untap(tap)
            default: if tap.mayConcern(event) { tap.deliver(event) }
            }
        }
    }

    // MARK: Fan-out

    func fanOut(_ event: StoreEvent) {
        feedTaps(event)
        switch event {
        case .likeChanged(let change):
            // A like by a block partner, or a likers preview naming one, is not shown (the count catches up with
            // the next change the socket may see, or the next read).
            let recipients = subscribers(of: change.postID).filter { !$0.hides(change.actor.id, names: change.likers) }
            guard !recipients.isEmpty else { return }
            let delivery = LiveDelivery(change)
            let drains = DrainBatch()
            for connection in recipients { connection.deliver(delivery, drains: drains) }
            drains.run()
            deliveries.increment(by: recipients.count)
        case .commentCreated(let comment, let count, let version):
            deliver(
                hiding: comment.author.id,
                LiveDelivery(
                    postID: comment.postId, version: version,
                    message: .commentCreated(
                        LiveCommentCreated(
                            postId: comment.postId, version: version, comment: comment, commentCount: count)
                    )))
        case .commentDeleted(let commentID, let postID, let count, let version, _):
            deliver(
                LiveDelivery(
                    postID: postID, version: version,
                    message: .commentDeleted(
                        LiveCommentDeleted(postId: postID, version: version, commentId: commentID, commentCount: count))
                ))
        case .captionEdited(let postID, let caption, let editedAt, let version):
            deliver(
                LiveDelivery(
                    postID: postID, version: version,
                    message: .postEdited(
                        LivePostEdited(postId: postID, version: version, caption: caption, editedAt: editedAt))))
        case .postCreated(let post, let audience):
            let recipients = connections(of: audience)
            guard post.likeCountHidden else { return send(.postCreated(post), to: recipients) }
            var withoutCount = post
            withoutCount.likeCount = nil
            send(.postCreated(post), to: recipients.filter { $0.user.id == post.author.id })
            send(.postCreated(withoutCount), to: recipients.filter { $0.user.id != post.author.id })
        case .likeCountHiddenChanged(let postID, let authorID, let hidden, let likeCount, let version):
            func message(count: Bool) -> LiveServerMessage {
                .likeCountVisibility(
                    LiveLikeCountVisibility(
                        postId: postID, version: version, likeCountHidden: hidden, likeCount: count ? likeCount : nil))
            }
            deliver(
                LiveDelivery(
                    postID: postID, version: version, author: authorID, forAuthor: message(count: true),
                    forOthers: message(count: !hidden)))
        case .postDeleted(let postID, let version, let audience):
            var recipients: [ObjectIdentifier: LiveConnection] = [:]
            for connection in subscribers(of: postID) + connections(of: audience) {
                recipients[ObjectIdentifier(connection)] = connection
            }
            registry.withLock { _ = $0.byPost.removeValue(forKey: postID) }
            guard !recipients.isEmpty else { return }
            let delivery = LiveDelivery(
                postID: postID, version: version,
                message: .postDeleted(LivePostDeleted(postId: postID, version: version)))
            let drains = DrainBatch()
            for connection in recipients.values { connection.deliverDeletion(delivery, drains: drains) }
            drains.run()
            deliveries.increment(by: recipients.count)
        case .imageChanged(let postID, let version):
            // Its alt text or its renditions: screens showing it read it again.
            deliver(
                LiveDelivery(
                    postID: postID, version: version,
                    message: .photoChanged(LivePhotoChanged(postId: postID, version: version))))
        case .followChanged(let follower, let followee, false) where isPrivate(followee):
            // A private account's follower no more (they unfollowed, or its owner removed them): their screens showing
            // its posts load again, and subscribe again (which refuses those they may no longer read).
            for connection in connections(of: [follower]) where connection.watchesPosts(by: followee) {
                connection.close(
                    code: LiveCloseCode.resync, reason: "you no longer follow a private account; load again")
            }
        case .followChanged, .muteChanged, .blockChanged(_, _, false):
            // Nothing on screen shows follows or mutes live; the next timeline read has the change. An unblock
            // restores nothing.
            return
        case .followRequestChanged, .privacyChanged(_, false), .domainBlockChanged, .reportForwarded:
            // A request reaches its owner as activity (activityChanged); a public account hides nothing; a blocked
            // server's people leave screens through their own changes.
            return
        case .privacyChanged(let user, true):
            // Its posts are for its followers only now: screens of others showing them load again, and subscribe
            // again (which refuses those they may no longer read).
            for connection in allConnections() where connection.user.id != user && connection.watchesPosts(by: user) {
                connection.close(code: LiveCloseCode.resync, reason: "an account went private; load again")
            }
        case .blockChanged(let blocker, let blocked, true):
            // Each may have the other's posts, likes and comments on screen, and be subscribed to them: both load
            // their screens again (where the other is no longer to be seen) and subscribe again (which refuses the
            // other's posts). Blocks are rare and rate limited.
            for connection in connections(of: [blocker, blocked]) {
                connection.close(code: LiveCloseCode.resync, reason: "a block changed what you may see; load again")
            }
        case .sessionEnded(let tokenHash):
            for connection in allConnections() where connection.tokenHash == tokenHash {
                connection.close(code: LiveCloseCode.sessionEnded, reason: "session ended; log in again")
            }
        case .profileChanged(let user):
            // Rare (rate limited) and shown anywhere: every connection hears of it, but those of block partners.
            send(.userUpdated(user), to: allConnections().filter { !$0.hides(user.id) })
        case .userRemoved(let user, _, let status):
            let reason = status == .suspended ? "account suspended" : "account deleted"
            var others: [LiveConnection] = []
            for connection in allConnections() {
                if connection.user.id == user {
                    connection.close(code: LiveCloseCode.accountClosed, reason: reason)
                } else {
                    others.append(connection)
                }
            }
            send(.userRemoved(LiveUserRemoved(userId: user)), to: others)
        case .userRestored:
            // The user's posts come back on screens as they load again; nothing already shown changes.
            return
        case .activityChanged(let user, let unreadCount):
            send(.activityChanged(ActivityUnread(unreadCount: unreadCount)), to: connections(of: [user]))
        case .changesMissed:
            for connection in allConnections() {
                connection.close(code: LiveCloseCode.resync, reason: "updates were missed; reconnect and load again")
            }
        }
    }

    private func allConnections() -> [LiveConnection] {
        registry.withLock { registry in registry.byUser.values.flatMap(\.values) }
    }

    /// Sends a message that is not about a subscribed post to each of `recipients`.
    private func send(_ message: LiveServerMessage, to recipients: [LiveConnection]) {
        guard !recipients.isEmpty else { return }
        let frame = LiveDelivery.encode(message)
        let drains = DrainBatch()
        for connection in recipients { connection.deliverFrame(frame, drains: drains) }
        drains.run()
        deliveries.increment(by: recipients.count)
    }

    /// Delivers an event to the post's subscribers, but those for whom `hiding` (the user who acted) is a block
    /// partner.
    private func deliver(hiding actor: Int64? = nil, _ delivery: LiveDelivery) {
        var recipients = subscribers(of: delivery.postID)
        if let actor { recipients.removeAll { $0.hides(actor) } }
        let drains = DrainBatch()
        for connection in recipients { connection.deliver(delivery, drains: drains) }
        drains.run()
        deliveries.increment(by: recipients.count)
    }
}

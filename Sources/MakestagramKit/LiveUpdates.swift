import Foundation
import Incremental
import MakestagramAPI

/// Keeps the models current over the event stream (docs/live-updates.md): subscribes to every post a screen shows,
/// merges likes, comments and deletions into the models by version, hands new timeline posts to the home feed,
/// and after a drop reconnects with backoff and subscribes again, so the snapshots bring every model up to date.
@MainActor
public final class LiveUpdates {
    /// Where the stream is.
    public enum Status: Sendable, Equatable {
        /// Not started, or stopped.
        case stopped
        /// Opening the socket.
        case connecting
        /// Open: events arrive.
        case live
        /// Dropped; the next attempt comes after a backoff.
        case waitingToReconnect
        /// The session ended (logged out elsewhere, or the token is no longer valid); log in again.
        case sessionEnded
    }

    /// Where the stream is, to show "reconnecting…" on screen.
    public var status: I<Status> { statusInput.i }
    /// Every message from the server, after the models took it (for logs and command-line tools).
    public var onMessage: ((LiveServerMessage) -> Void)?
    /// Told when the server ended the session (the facade then forgets it; screens see `user` become nil).
    var sessionEnded: (() -> Void)?
    /// Receives the unread activity count; asked to load it again when the stream is back.
    var activity: ActivityStore?

    private let statusInput = Input(Status.stopped)
    private let client: APIClient
    private let store: PostStore
    private let transport: any LiveTransport
    private let homeFeed: () -> FeedStore?
    private var task: Task<Void, Never>?
    private var send: (@Sendable (String) async throws -> Void)?
    /// What the server holds for this socket once it has acted on every message sent, corrected by every refusal it
    /// names: always the server's own set.
    private var subscribed: Set<Int64> = []
    /// Posts the server said are gone or hidden: not asked for again on this connection.
    private var unavailable: Set<Int64> = []
    /// Whether the server asked for screens to load again: the next hello reads the home feed anew.
    private var reloadOnHello = false
    /// After a refusal, nothing is sent before the moment the server named.
    private var refusedUntil = ContinuousClock.now
    private var maxSubscriptions = LiveProtocol.maxSubscriptions
    /// Posts to follow although no model shows them (command-line `watch`).
    private var extra: Set<Int64> = []

    init(client: APIClient, store: PostStore, transport: any LiveTransport, homeFeed: @escaping () -> FeedStore?) {
        self.client = client
        self.store = store
        self.transport = transport
        self.homeFeed = homeFeed
        store.onNewModels = { [weak self] in self?.scheduleSync() }
    }

    /// Opens the stream (and keeps it open until ``stop()``).
    public func start() {
        guard task == nil else { return }
        statusInput.write(.connecting)
        task = Task { [weak self] in await self?.runLoop() }
    }

    /// Closes the stream.
    public func stop() {
        task?.cancel()
        task = nil
        send = nil
        subscribed = []
        unavailable = []
        statusInput.write(.stopped)
    }

    /// Follows these posts too, although no screen holds their models.
    public func watch(_ ids: [Int64]) {
        extra.formUnion(ids)
        scheduleSync()
    }

    // MARK: The connection

    private func runLoop() async {
        var attempt = 0
        while !Task.isCancelled {
            statusInput.write(attempt == 0 ? .connecting : .waitingToReconnect)
            guard let token = client.token else {
                statusInput.write(.sessionEnded)
                return
            }
            var closeCode: UInt16?
            do {
                closeCode = try await transport.run(
                    url: client.eventsURL, headers: ["Authorization": "Bearer \(token)"]
                ) { [weak self] socket in
                    guard let self else { return }
                    await self.opened(socket.send)
                    for try await text in socket.messages {
                        guard await self.receive(text) else { break }
                    }
                }
            } catch {
                closeCode = nil
            }
            guard !Task.isCancelled else { return }
            send = nil
            subscribed = []
            unavailable = []
            switch closeCode {
            case LiveCloseCode.sessionEnded, LiveCloseCode.unauthorized, LiveCloseCode.accountClosed:
                task = nil
                sessionEnded?()
                statusInput.write(.sessionEnded)
                return
            case LiveCloseCode.resync:
                // What the viewer may see changed (a block) or updates were missed: the feed is read again.
                attempt = 0
                reloadOnHello = true
                continue
            default:
                break
            }
            statusInput.write(.waitingToReconnect)
            // 0.5, 1, 2 … 30 seconds, with jitter so that clients of a restarted server do not all come back at once.
            let delay = min(30.0, 0.5 * pow(2, Double(min(attempt, 6)))) * Double.random(in: 0.75...1.25)
            attempt += 1
            try? await Task.sleep(for: .seconds(delay))
        }
    }

    private func opened(_ send: @escaping @Sendable (String) async throws -> Void) {
        self.send = send
    }

    /// Handles one message; answers false when the stream should be dropped.
    private func receive(_ text: String) async -> Bool {
        guard let message = try? JSONCoding.decoder().decode(LiveServerMessage.self, from: Data(text.utf8)) else {
            return true  // a message type from a newer server: ignored
        }
        switch message {
        case .hello(let hello):
            maxSubscriptions = hello.maxSubscriptions
            subscribed = []
            unavailable = []
            refusedUntil = .now
            statusInput.write(.live)
            sync()
            // Back online: what was liked meanwhile goes out, and the feed picks up what was posted.
            let reload = reloadOnHello
            reloadOnHello = false
            Task {
                await store.sendPendingLikes()
                if reload { try? await homeFeed()?.reload() } else { try? await homeFeed()?.catchUp() }
                try? await activity?.refreshUnreadCount()
            }
        case .postCreated(let post):
            homeFeed()?.announce(post)
        case .subscribed(let answer):
            subscribed.subtract(answer.unavailable)
            unavailable.formUnion(answer.unavailable)
            // Gone, or no longer for the viewer to see (its author blocks them): it leaves the feed.
            if !answer.unavailable.isEmpty { homeFeed()?.removePosts(Set(answer.unavailable)) }
        case .postDeleted(let event):
            subscribed.remove(event.postId)
            unavailable.insert(event.postId)
            store.apply(message)
        case .error(let error):
            refused(error)
        case .activityChanged(let unread):
            activity?.received(unreadCount: unread.unreadCount)
        default:
            store.apply(message)
        }
        onMessage?(message)
        return true
    }

    // MARK: Subscriptions

    private var syncScheduled = false

    /// Subscribes on the next turn, so that a page of new models costs one message.
    private func scheduleSync() {
        guard !syncScheduled else { return }
        syncScheduled = true
        Task { [weak self] in
            self?.syncScheduled = false
            self?.sync()
        }
    }

    /// The server did not do what a message asked: take its word for what it holds, and ask again when it says.
    private func refused(_ error: LiveError) {
        switch error.refused {
        case "subscribe": subscribed.subtract(error.posts ?? [])
        case "unsubscribe": subscribed.formUnion(error.posts ?? [])
        default: return
        }
        guard let seconds = error.retryAfter else { return }
        let until = ContinuousClock.now + .seconds(seconds)
        refusedUntil = max(refusedUntil, until)
        Task { [weak self] in
            try? await Task.sleep(until: until)
            self?.sync()
        }
    }

    /// Subscribes to the posts shown and not subscribed yet (the newest first, up to the cap) and unsubscribes
    /// from those no longer shown.
    private func sync() {
        guard let send, statusInput.value == .live, ContinuousClock.now >= refusedUntil else { return }
        let wanted = Set(store.liveIDs).union(extra)
        unavailable.formIntersection(wanted)
        let dropped = subscribed.subtracting(wanted)
        subscribed.subtract(dropped)
        let room = max(0, maxSubscriptions - subscribed.count)
        let added = Array(wanted.subtracting(subscribed).subtracting(unavailable).sorted(by: >).prefix(room))
        subscribed.formUnion(added)
        var messages: [LiveClientMessage] = []
        if !dropped.isEmpty { messages.append(.unsubscribe(posts: dropped.sorted())) }
        if !added.isEmpty { messages.append(.subscribe(posts: added.sorted())) }
        guard !messages.isEmpty else { return }
        let texts = messages.compactMap { try? String(decoding: JSONEncoder().encode($0), as: UTF8.self) }
        Task {
            for text in texts { try? await send(text) }
        }
    }
}

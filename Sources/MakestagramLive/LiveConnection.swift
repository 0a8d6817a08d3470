import MakestagramAPI
import NIOCore
import NIOWebSocket
import Synchronization

/// One live WebSocket: what it is subscribed to, what the user has liked, and the messages waiting to be written.
///
/// The hub calls in from its fan-out task. Nothing here ever waits for the network, so a slow client cannot slow
/// the hub or any other connection: its messages wait in its own bounded ``LiveOutbox``, and when that overflows
/// the connection is closed with ``LiveCloseCode/resync``.
///
/// Messages leave by one of two writers, never both at once, so they stay in order (``Writer``):
/// - **direct** (the usual case): a drain scheduled on the socket's event loop writes what waits straight onto the
///   channel as finished frames, with one flush, while the socket can take more: no task wakes up, no executor hop;
/// - **the writer task** (``nextFrames()``, run by ``LiveSession``): it writes through the WebSocket library's own
///   outbound writer and waits for the socket as long as it must. It takes over when the socket cannot take more,
///   and gives the outbox back to direct drains only once it has emptied it. When direct writes are not allowed
///   (a WebSocket extension such as per-message deflate was negotiated, which must transform every frame) the
///   writer task writes everything.
final class LiveConnection: Sendable {
    let user: UserSummary
    /// The session the socket was opened with; logging it out closes the socket.
    let tokenHash: [UInt8]
    /// The most messages that may wait before the client counts as too far behind.
    let queueLimit: Int
    /// The socket, closed outright if a requested close has not completed within ``closeGrace``.
    let channel: (any Channel)?
    /// How long a client gets to read what is already on its way and the close frame.
    let closeGrace: TimeAmount
    /// Whether finished frames may be written below the frame encoder (see ``WireFrame``): only when no extension
    /// transforms frames, and only with a channel.
    let directWrites: Bool

    /// Why and how the socket is to be closed.
    struct CloseRequest: Sendable, Equatable {
        var code: UInt16
        var reason: String
    }

    private enum Subscription {
        /// Subscribed, snapshot not sent yet: events are kept until it is.
        case pending([LiveDelivery])
        /// Snapshot sent; `version` is the newest state queued for the client.
        case active(viewerHasLiked: Bool, version: Int64)
    }

    /// Who writes what waits in the outbox.
    private enum Writer {
        /// Direct drains; none is queued (the outbox is empty, or a drain is about to be queued).
        case directIdle
        /// Direct drains; one is queued on the event loop and will write what waits.
        case directScheduled
        /// The writer task: the socket could not take more, or direct writes are not allowed. Drains write nothing.
        case task
    }

    private struct State {
        var subscriptions: [Int64: Subscription] = [:]
        /// The authors of the posts subscribed to since the socket opened (kept after an unsubscribe: it only ever
        /// asks a screen to load again for nothing).
        var authors: Set<Int64> = []
        var outbox = LiveOutbox()
        var writer: Writer
        /// The writer task, parked until it has something to write or the socket is to close.
        var parked: CheckedContinuation<Void, Never>?
        var close: CloseRequest?
        var finished = false

        /// Whether the writer task must run now: it owns the outbox and there is something for it to do.
        var writerTaskHasWork: Bool {
            close != nil || finished || (writer == .task && !outbox.isEmpty)
        }
    }

    private let state: Mutex<State>

    init(
        user: UserSummary, tokenHash: [UInt8], queueLimit: Int, channel: (any Channel)? = nil,
        closeGrace: TimeAmount = .seconds(10), directWrites: Bool = true
    ) {
        self.user = user
        self.tokenHash = tokenHash
        self.queueLimit = queueLimit
        self.channel = channel
        self.closeGrace = closeGrace
        let direct = directWrites && channel != nil
        self.directWrites = direct
        self.state = Mutex(State(writer: direct ? .directIdle : .task))
        self.encoderContext = channel.map {
            NIOLoopBoundBox.makeEmptyBox(valueType: ChannelHandlerContext.self, eventLoop: $0.eventLoop)
        }
    }

    // MARK: Subscriptions

    /// Marks the new posts among `ids` as pending, up to the subscription cap. Answers those accepted and those
    /// refused for the cap.
    func beginSubscribe(_ ids: [Int64]) -> (accepted: [Int64], overCap: [Int64]) {
        state.withLock { state in
            var accepted: [Int64] = []
            var overCap: [Int64] = []
            for id in ids where state.subscriptions[id] == nil {
                if state.subscriptions.count >= LiveProtocol.maxSubscriptions {
                    overCap.append(id)
                } else {
                    state.subscriptions[id] = .pending([])
                    accepted.append(id)
                }
            }
            return (accepted, overCap)
        }
    }

    /// Sends the subscribe answer and each found post's snapshot, then the events that arrived meanwhile and are
    /// newer than the snapshot. Posts not found are forgotten.
    func completeSubscribe(found posts: [Post], unavailable: [Int64]) {
        let subscribed = LiveDelivery.encode(
            .subscribed(LiveSubscribed(posts: posts.map(\.id).sorted(), unavailable: unavailable.sorted())))
        let snapshots = posts.map { LiveDelivery.encode(.snapshot($0.seen(by: user.id))) }
        change {
            $0.outbox.append(subscribed)
            for id in unavailable { $0.subscriptions[id] = nil }
            for post in posts { $0.authors.insert(post.author.id) }
            for (post, snapshot) in zip(posts, snapshots) {
                // An unsubscribe or a deletion may have come first.
                guard case .pending(let waiting) = $0.subscriptions[post.id] else { continue }
                $0.subscriptions[post.id] = .active(viewerHasLiked: post.viewerHasLiked, version: post.version)
                $0.outbox.append(snapshot)
                for delivery in waiting { apply(delivery, to: &$0) }
            }
        }
    }

    /// The user's block partners: events that show one of them (their like, their comment, a likers preview naming
    /// them, their new name) are not sent on this socket.
    private let hidden = Mutex<(ids: Set<Int64>, names: Set<String>)>(([], []))

    func hide(_ partners: [Int64: String]) {
        hidden.withLock { $0 = (Set(partners.keys), Set(partners.values)) }
    }

    /// Whether an event by `user`, or showing the `names`, is not for this socket.
    func hides(_ user: Int64, names: [String] = []) -> Bool {
        hidden.withLock { hidden in
            !hidden.ids.isEmpty && (hidden.ids.contains(user) || names.contains(where: hidden.names.contains))
        }
    }

    /// Whether the socket subscribed to a post by `author` since it opened.
    func watchesPosts(by author: Int64) -> Bool {
        state.withLock { $0.authors.contains(author) }
    }

    /// How many of `ids` are not subscribed yet (what subscribing to them would cost in snapshots).
    func unsubscribed(among ids: [Int64]) -> Int {
        state.withLock { state in Set(ids).count { state.subscriptions[$0] == nil } }
    }

    /// The posts among `ids` not subscribed (each once, in the order given): those a refused subscribe leaves out.
    func notSubscribed(among ids: [Int64]) -> [Int64] {
        var seen = Set<Int64>()
        return state.withLock { state in ids.filter { state.subscriptions[$0] == nil && seen.insert($0).inserted } }
    }

    /// The posts among `ids` subscribed to, pending or not (each once, in the order given).
    func subscribed(among ids: [Int64]) -> [Int64] {
        var seen = Set<Int64>()
        return state.withLock { state in ids.filter { state.subscriptions[$0] != nil && seen.insert($0).inserted } }
    }

    /// Stops events about `ids`. Answers the IDs that were subscribed.
    func unsubscribe(_ ids: [Int64]) -> [Int64] {
        state.withLock { state in
            ids.filter { id in
                guard state.subscriptions.removeValue(forKey: id) != nil else { return false }
                state.outbox.dropLikeState(postID: id)
                return true
            }
        }
    }

    /// The posts subscribed to, pending or not.
    var subscribedPosts: [Int64] {
        state.withLock { Array($0.subscriptions.keys) }
    }

    // MARK: Deliveries (from the hub)

    /// An event about a post the connection may be subscribed to.
    func deliver(_ delivery: LiveDelivery, drains: DrainBatch? = nil) {
        change(drains) { apply(delivery, to: &$0) }
    }

    /// A message that is not about a subscribed post: a new post in the user's home timeline, a user's new name.
    func deliverFrame(_ frame: ByteBuffer, drains: DrainBatch? = nil) {
        change(drains) { $0.outbox.append(frame) }
    }

    /// A deleted post that is subscribed to or was in the user's home timeline: sent once, and the subscription ends.
    func deliverDeletion(_ delivery: LiveDelivery, drains: DrainBatch? = nil) {
        guard case .frame(let frame) = delivery.payload else { return }
        change(drains) {
            $0.subscriptions[delivery.postID] = nil
            $0.outbox.dropLikeState(postID: delivery.postID)
            $0.outbox.append(frame)
        }
    }

    /// A message of the connection's own (hello, errors).
    func send(_ message: LiveServerMessage) {
        let frame = LiveDelivery.encode(message)
        change { $0.outbox.append(frame) }
    }

    private func apply(_ delivery: LiveDelivery, to state: inout State) {
        switch state.subscriptions[delivery.postID] {
        case .pending(var waiting):
            waiting.append(delivery)
            state.subscriptions[delivery.postID] = .pending(waiting)
        case .active(var viewerHasLiked, let version):
            // Duplicates and states older than what the client has are never sent.
            guard delivery.version > version else { return }
            switch delivery.payload {
            case .like(let actorID, let liked, var whenLiked, var whenNot, let author):
                if actorID == user.id { viewerHasLiked = liked }
                if let author, author.author == user.id {
                    whenLiked = author.whenViewerLiked
                    whenNot = author.whenViewerDidNot
                }
                state.outbox.appendLikeState(viewerHasLiked ? whenLiked : whenNot, postID: delivery.postID)
            case .frame(let frame):
                state.outbox.append(frame)
            case .byAuthor(let author, let forAuthor, let forOthers):
                state.outbox.append(author == user.id ? forAuthor : forOthers)
            }
            state.subscriptions[delivery.postID] = .active(viewerHasLiked: viewerHasLiked, version: delivery.version)
        case nil:
            return
        }
    }

    // MARK: Closing

    /// Asks the writer task to close the socket with `code`; waiting messages are dropped.
    func close(code: UInt16, reason: String) {
        change {
            guard $0.close == nil else { return }
            $0.close = CloseRequest(code: code, reason: reason)
            $0.outbox.removeAll()
        }
    }

    /// The socket is gone: the writer task stops.
    func finish() {
        change { $0.finished = true }
    }

    /// Whether a close was requested, and how.
    var closeRequest: CloseRequest? {
        state.withLock { $0.close }
    }

    // MARK: The writer task

    /// The frames for the writer task to write next, oldest first; waits until it owns the outbox and something
    /// waits in it. Nil once the socket is to close (then ``closeRequest`` says how).
    func nextFrames() async -> [ByteBuffer]? {
        while true {
            let frames: [ByteBuffer]?? = state.withLock { state in
                if state.close != nil || state.finished { return .some(nil) }
                guard state.writer == .task else { return nil }
                if !state.outbox.isEmpty { return .some(state.outbox.takeAll()) }
                // All written: direct drains may write again.
                if directWrites { state.writer = .directIdle }
                return nil
            }
            if let frames { return frames }
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state in
                    guard !state.writerTaskHasWork else { return true }
                    state.parked = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    /// Applies `body` to the state, closes the connection if too much is waiting, and gets what waits on its way:
    /// a direct drain on the event loop (with `drains`, the hub's batch runs it with the other connections of the
    /// same loop), or the parked writer task.
    private func change(_ drains: DrainBatch? = nil, _ body: (inout State) -> Void) {
        let (wake, scheduleDrain, closing) = state.withLock {
            state -> (CheckedContinuation<Void, Never>?, Bool, Bool) in
            guard state.close == nil, !state.finished else { return (nil, false, false) }
            body(&state)
            if state.outbox.count > queueLimit {
                state.close = CloseRequest(
                    code: LiveCloseCode.resync, reason: "too far behind; reconnect and subscribe again")
                state.outbox.removeAll()
            }
            if state.writerTaskHasWork {
                defer { state.parked = nil }
                return (state.parked, false, state.close != nil)
            }
            guard state.writer == .directIdle, !state.outbox.isEmpty else { return (nil, false, false) }
            state.writer = .directScheduled
            return (nil, true, false)
        }
        wake?.resume()
        if scheduleDrain, let channel {
            if let drains {
                drains.add(self, on: channel.eventLoop)
            } else {
                channel.eventLoop.execute { self.drain(channel) }
            }
        }
        if closing, let channel {
            // A stalled client never reads the close frame; its socket goes after the grace period.
            channel.eventLoop.scheduleTask(in: closeGrace) { channel.close(promise: nil) }
        }
    }

    // MARK: Direct writes

    /// On the socket's event loop: writes what waits and flushes once, or hands the outbox to the writer task if
    /// the socket cannot take more.
    func drain() {
        if let channel { drain(channel) }
    }

    private func drain(_ channel: any Channel) {
        let (frames, wake) = state.withLock { state -> ([ByteBuffer], CheckedContinuation<Void, Never>?) in
            guard state.writer == .directScheduled else { return ([], nil) }
            state.writer = .directIdle
            guard state.close == nil, !state.finished, !state.outbox.isEmpty else { return ([], nil) }
            if channel.isWritable { return (state.outbox.takeAll(), nil) }
            state.writer = .task
            defer { state.parked = nil }
            return ([], state.parked)
        }
        wake?.resume()
        guard !frames.isEmpty else { return }
        guard let context = encoderContext(channel) else {
            for frame in frames {
                channel.write(
                    WebSocketFrame(fin: true, opcode: .text, data: WireFrame.payload(of: frame)), promise: nil)
            }
            return channel.flush()
        }
        for frame in frames { context.write(NIOAny(frame), promise: nil) }
        context.flush()
    }

    /// The frame encoder's place in the socket's pipeline, found on the first drain (on the event loop).
    private let encoderContext: NIOLoopBoundBox<ChannelHandlerContext?>?

    /// Where finished frames enter the pipeline: the frame encoder's context, whose writes go on towards the socket
    /// (see ``WireFrame``).
    private func encoderContext(_ channel: any Channel) -> ChannelHandlerContext? {
        guard let box = encoderContext else { return nil }
        if let context = box.value { return context }
        let context = try? channel.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)
        box.value = context
        return context
    }
}

/// The connections one event gave something to write, by event loop: the hub runs one task per loop that drains
/// them all, instead of one per connection. Used by one fan-out at a time; not thread-safe.
final class DrainBatch: @unchecked Sendable {
    private var loops: [ObjectIdentifier: (loop: any EventLoop, connections: [LiveConnection])] = [:]

    func add(_ connection: LiveConnection, on loop: any EventLoop) {
        loops[ObjectIdentifier(loop), default: (loop, [])].connections.append(connection)
    }

    /// Drains every connection on its loop.
    func run() {
        for (loop, connections) in loops.values {
            loop.execute {
                for connection in connections { connection.drain() }
            }
        }
        loops = [:]
    }
}

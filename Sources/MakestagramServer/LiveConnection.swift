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
/// Messages leave on one of two paths, never both at once (so they stay in order):
/// - the fast path: a drain scheduled on the socket's event loop writes what waits straight onto the channel, with
///   one flush, while the socket can take more (the usual case: no task wakes up, no executor hop);
/// - the slow path: when the socket cannot take more, the drain hands over to the writer task
///   (``nextFrames()``), which waits for the socket as long as it must; while it holds the hand-over
///   (`writerBusy`), drains write nothing, and it hands back only once the outbox is empty.
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

    private struct State {
        var subscriptions: [Int64: Subscription] = [:]
        var outbox = LiveOutbox()
        /// The writer task, parked until it is handed the outbox or the socket is to close.
        var writer: CheckedContinuation<Void, Never>?
        /// Whether the writer task holds the hand-over (the socket could not take more); drains write nothing.
        var writerBusy = false
        /// Whether a drain is queued on the event loop.
        var drainScheduled = false
        var close: CloseRequest?
        var finished = false
    }

    private let state = Mutex(State())

    init(
        user: UserSummary, tokenHash: [UInt8], queueLimit: Int, channel: (any Channel)? = nil,
        closeGrace: TimeAmount = .seconds(10)
    ) {
        self.user = user
        self.tokenHash = tokenHash
        self.queueLimit = queueLimit
        self.channel = channel
        self.closeGrace = closeGrace
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
        let snapshots = posts.map { LiveDelivery.encode(.snapshot($0)) }
        notifyWriter {
            $0.outbox.append(subscribed)
            for id in unavailable { $0.subscriptions[id] = nil }
            for (post, snapshot) in zip(posts, snapshots) {
                // An unsubscribe or a deletion may have come first.
                guard case .pending(let waiting) = $0.subscriptions[post.id] else { continue }
                $0.subscriptions[post.id] = .active(viewerHasLiked: post.viewerHasLiked, version: post.version)
                $0.outbox.append(snapshot)
                for delivery in waiting { apply(delivery, to: &$0) }
            }
        }
    }

    /// How many of `ids` are not subscribed yet (what subscribing to them would cost in snapshots).
    func unsubscribed(among ids: [Int64]) -> Int {
        state.withLock { state in Set(ids).count { state.subscriptions[$0] == nil } }
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
        notifyWriter(drains) { apply(delivery, to: &$0) }
    }

    /// A new post in the user's home timeline.
    func deliverTimelinePost(_ frame: ByteBuffer, drains: DrainBatch? = nil) {
        notifyWriter(drains) { $0.outbox.append(frame) }
    }

    /// A deleted post that is subscribed to or was in the user's home timeline: sent once, and the subscription ends.
    func deliverDeletion(_ delivery: LiveDelivery, drains: DrainBatch? = nil) {
        guard case .frame(let frame) = delivery.payload else { return }
        notifyWriter(drains) {
            $0.subscriptions[delivery.postID] = nil
            $0.outbox.dropLikeState(postID: delivery.postID)
            $0.outbox.append(frame)
        }
    }

    /// A message of the connection's own (hello, errors).
    func send(_ message: LiveServerMessage) {
        let frame = LiveDelivery.encode(message)
        notifyWriter { $0.outbox.append(frame) }
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
            case .like(let actorID, let liked, let whenLiked, let whenNot):
                if actorID == user.id { viewerHasLiked = liked }
                state.outbox.appendLikeState(viewerHasLiked ? whenLiked : whenNot, postID: delivery.postID)
            case .frame(let frame):
                state.outbox.append(frame)
            }
            state.subscriptions[delivery.postID] = .active(viewerHasLiked: viewerHasLiked, version: delivery.version)
        case nil:
            return
        }
    }

    // MARK: Closing

    /// Asks the writer to close the socket with `code`; waiting messages are dropped.
    func close(code: UInt16, reason: String) {
        notifyWriter {
            guard $0.close == nil else { return }
            $0.close = CloseRequest(code: code, reason: reason)
            $0.outbox.removeAll()
        }
    }

    /// The socket is gone: the writer stops.
    func finish() {
        notifyWriter { $0.finished = true }
    }

    /// The frame encoder's place in the socket's pipeline, found on the first drain (on the event loop): frames are
    /// already encoded (``WireFrame``), so they are written below the encoder, straight towards the socket.
    private let encoderContext: NIOLoopBoundBox<ChannelHandlerContext?>?

    /// Whether a close was requested, and how.
    var closeRequest: CloseRequest? {
        state.withLock { $0.close }
    }

    // MARK: Writer side

    /// The frames to write next, oldest first, once the fast path has handed over to the writer task; waits until
    /// then. Nil once the socket is to close. (Without a channel, as in unit tests, the writer takes everything.)
    func nextFrames() async -> [ByteBuffer]? {
        while true {
            let frames: [ByteBuffer]?? = state.withLock { state in
                if state.close != nil || state.finished { return .some(nil) }
                if state.writerBusy || channel == nil {
                    if !state.outbox.isEmpty { return .some(state.outbox.takeAll()) }
                    // All written: the fast path may write again.
                    state.writerBusy = false
                }
                return nil
            }
            if let frames { return frames }
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state in
                    let handedOver = state.writerBusy || channel == nil
                    guard state.close == nil, !state.finished, !(handedOver && !state.outbox.isEmpty) else {
                        return true
                    }
                    state.writer = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    /// Changes the state, closes the connection if too much is waiting, and gets what waits on its way: a drain on
    /// the event loop (fast path; with `drains`, the hub's batch runs it with the other connections of the same
    /// loop), or the writer task when it holds the hand-over or the socket is to close.
    private func notifyWriter(_ drains: DrainBatch? = nil, _ change: (inout State) -> Void) {
        let (writer, drain, closing) = state.withLock {
            state -> (CheckedContinuation<Void, Never>?, Bool, Bool) in
            guard state.close == nil, !state.finished else { return (nil, false, false) }
            change(&state)
            if state.outbox.count > queueLimit {
                state.close = CloseRequest(
                    code: LiveCloseCode.resync, reason: "too far behind; reconnect and subscribe again")
                state.outbox.removeAll()
            }
            let writerOwns = state.close != nil || state.finished || state.writerBusy || channel == nil
            if writerOwns {
                let hasWork = !state.outbox.isEmpty || state.close != nil || state.finished
                guard hasWork, let writer = state.writer else { return (nil, false, state.close != nil) }
                state.writer = nil
                return (writer, false, state.close != nil)
            }
            guard !state.outbox.isEmpty, !state.drainScheduled else { return (nil, false, false) }
            state.drainScheduled = true
            return (nil, true, false)
        }
        writer?.resume()
        if drain, let channel {
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

    /// On the socket's event loop: writes what waits and flushes once, or hands over to the writer task if the
    /// socket cannot take more.
    func drain() {
        if let channel { drain(channel) }
    }

    private func drain(_ channel: any Channel) {
        let (frames, writer) = state.withLock { state -> ([ByteBuffer], CheckedContinuation<Void, Never>?) in
            state.drainScheduled = false
            guard state.close == nil, !state.finished, !state.writerBusy, !state.outbox.isEmpty else {
                return ([], nil)
            }
            if channel.isWritable { return (state.outbox.takeAll(), nil) }
            state.writerBusy = true
            defer { state.writer = nil }
            return ([], state.writer)
        }
        writer?.resume()
        guard !frames.isEmpty else { return }
        guard let context = wireContext(channel) else {
            for frame in frames {
                channel.write(
                    WebSocketFrame(fin: true, opcode: .text, data: WireFrame.payload(of: frame)), promise: nil)
            }
            return channel.flush()
        }
        for frame in frames { context.write(NIOAny(frame), promise: nil) }
        context.flush()
    }

    /// Where encoded frames enter the pipeline: the frame encoder's context (its writes go on towards the socket).
    private func wireContext(_ channel: any Channel) -> ChannelHandlerContext? {
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

import MakestagramStore

/// Carries committed store changes to the live hub of every server instance.
///
/// The store publishes into the bus after each commit; each instance's ``LiveHub`` reads ``events`` and fans the
/// events out to its sockets. This process-local bus serves one instance; a bus over PostgreSQL's LISTEN/NOTIFY
/// (whose notifications arrive in commit order) would let several instances share events without changing the
/// routes, the hub or the socket code.
public protocol EventBus: StoreEventSink {
    /// Every published event, in publication order; read by one consumer, the hub.
    var events: AsyncStream<StoreEvent> { get }
}

/// The bus of a single server process: an unbounded in-order queue from the store's writer to the hub.
///
/// Unbounded is safe here: the hub only copies references into per-connection queues (which are bounded), so it
/// drains far faster than the single SQLite writer can commit.
public final class LocalEventBus: EventBus {
    public let events: AsyncStream<StoreEvent>
    private let continuation: AsyncStream<StoreEvent>.Continuation

    public init() {
        (events, continuation) = AsyncStream.makeStream(of: StoreEvent.self, bufferingPolicy: .unbounded)
    }

    public func publish(_ event: StoreEvent) {
        continuation.yield(event)
    }

    /// Ends the stream (the hub then stops).
    public func finish() {
        continuation.finish()
    }
}

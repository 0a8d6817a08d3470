#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The dependency graph that a set of inputs and derived values belong to, and the actor it runs on.
///
/// Every write, propagation and observer call of a graph happens on its actor (the main actor for ``Graph/main``),
/// so propagation never races. Code already on that actor writes with ``Input/write(_:)``; code on any other thread
/// uses ``Input/send(_:)``, which hands the write to the actor in order, and several such writes that arrive together
/// are propagated as one transaction.
public final class Graph: @unchecked Sendable {
    /// The graph of values shown by the user interface, confined to the main actor.
    public static let main = Graph(actor: MainActor.shared)

    /// The actor that owns this graph.
    public let actor: any Actor

    // State below is touched only on `actor` (so it needs no dynamic exclusivity checks).
    @exclusivity(unchecked) private var queue = NodeQueue()
    @exclusivity(unchecked) private var batchDepth = 0
    @exclusivity(unchecked) private var pendingObservers: [AnyNode] = []
    @exclusivity(unchecked) private var propagating = false
    /// Whether nodes are being recomputed from the queue (not yet telling observers): a node that becomes necessary
    /// now waits for its turn in height order instead of computing at once.
    @exclusivity(unchecked) private(set) var isStepping = false
    /// Counts reads of values nothing observes (see ``AnyNode/pull()``).
    @exclusivity(unchecked) var pullCount: UInt64 = 0
    /// For ``main``: the thread found to be the main actor's. Checking that a call runs on it is a thread
    /// comparison; asking the runtime whether the main actor is current costs more than a whole propagation step.
    @exclusivity(unchecked) private var mainThread: pthread_t?

    // Writes from other threads, waiting for the actor (guarded by the mutex, not the actor).
    private let mailbox = Locked<(writes: [@Sendable () -> Void], scheduled: Bool)>(([], false))

    /// A graph confined to `actor`.
    public init(actor: any Actor) {
        self.actor = actor
    }

    /// Traps unless the caller runs on the graph's actor.
    @usableFromInline
    func checkIsolation() {
        // The main actor always runs on the main thread, and nothing else runs there while it does: once the main
        // thread is known, being on it is being isolated to the main actor.
        if let mainThread, pthread_equal(mainThread, pthread_self()) != 0 { return }
        actor.preconditionIsolated("an Incremental graph is used off its actor; use send(_:) from other threads")
        if actor === MainActor.shared { mainThread = pthread_self() }
    }

    /// Runs `body` as one transaction: all writes inside propagate once, when the outermost batch ends.
    public func batch<R>(_ body: () throws -> R) rethrows -> R {
        checkIsolation()
        batchDepth += 1
        defer {
            batchDepth -= 1
            if batchDepth == 0 { propagate() }
        }
        return try body()
    }

    /// Schedules `node` to be recomputed in the current (or next) propagation.
    @usableFromInline
    func enqueue(_ node: consuming AnyNode) {
        queue.insert(node)
    }

    /// Records that `node`'s observers must be told its new value once propagation settles.
    func notifyObservers(of node: AnyNode) {
        guard !node.observersPending, node.hasObservers else { return }
        node.observersPending = true
        pendingObservers.append(node)
    }

    /// Recomputes dirty nodes in height order, each at most once, then tells the observers of changed nodes.
    @usableFromInline
    func propagate() {
        guard batchDepth == 0, !propagating else { return }
        propagating = true
        defer { propagating = false }
        repeat {
            isStepping = true
            while let node = queue.popMin() {
                node.recompute()
            }
            isStepping = false
            // Observers see only settled, consistent values; writes they make start a new round.
            let observers = pendingObservers
            pendingObservers.removeAll(keepingCapacity: true)
            for node in observers {
                node.observersPending = false
                node.fireObservers()
            }
        } while !queue.isEmpty
    }

    /// Runs `body` on the actor: at once when the caller is known to be on it (the main thread, for ``main``),
    /// otherwise as soon as the actor is free.
    @usableFromInline
    func onActor(_ body: @escaping @Sendable () -> Void) {
        if let mainThread, pthread_equal(mainThread, pthread_self()) != 0 {
            body()
        } else {
            deliver(body)
        }
    }

    /// Queues `write` to run on the actor; the writes queued together run as one transaction.
    func deliver(_ write: @escaping @Sendable () -> Void) {
        let schedule = mailbox.withLock { state -> Bool in
            state.writes.append(write)
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        guard schedule else { return }
        Task { await self.actor.runIsolated { _ in self.drainMailbox() } }
    }

    private func drainMailbox() {
        let writes = mailbox.withLock { state -> [@Sendable () -> Void] in
            let writes = state.writes
            state.writes.removeAll()
            state.scheduled = false
            return writes
        }
        batch {
            for write in writes { write() }
        }
    }
}

extension Actor {
    /// Runs `body` on this actor.
    fileprivate func runIsolated(_ body: @Sendable (isolated Self) -> Void) {
        body(self)
    }
}

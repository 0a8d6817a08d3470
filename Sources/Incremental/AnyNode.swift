/// A node of the graph, whatever its value type: its height (longest path from an input), its sources and
/// dependents, and the bookkeeping of propagation.
///
/// Only *necessary* nodes are kept current by propagation: those observed, and the sources of necessary nodes
/// (the model of Jane Street's Incremental). A node keeps its sources alive; a source holds a dependent only while
/// the dependent is necessary, so when the last observation of a value ends, it leaves its sources' dependents
/// and is released once nothing else holds it. No weak references are involved, which keeps reference counting
/// on the fast path. A value nothing observes is brought up to date when it is read (``I/value``).
///
/// A node's work in a propagation is its `step`: recompute the value, store it, and answer whether it changed. The
/// step is a closure built where the value is derived (`map`, `zip`, `Input`…, all `@inlinable`), so it runs
/// specialised for the value's type, and the graph calls it without generic or virtual dispatch.
public class AnyNode: @unchecked Sendable {
    @usableFromInline final let graph: Graph
    /// 0 for inputs and constants; otherwise more than every source's height.
    @exclusivity(unchecked) @usableFromInline final var height: Int
    /// Waiting in the graph's queue.
    @exclusivity(unchecked) @usableFromInline final var queued = false
    /// Observers are to be told at the end of the current propagation.
    @exclusivity(unchecked) final var observersPending = false
    /// Grows each time the value changes.
    @exclusivity(unchecked) @usableFromInline final var version: UInt64 = 0
    /// Recomputes and stores the value; answers whether it changed. A node that must wait for a source still
    /// queued (a flatMap's new inner value) queues itself again and answers false.
    @exclusivity(unchecked) @usableFromInline final var step: () -> Bool = { false }
    /// What the value is computed from (a flatMap's inner value changes).
    @exclusivity(unchecked) @usableFromInline final var sources: [AnyNode] = []
    /// The necessary nodes computed from this one.
    @exclusivity(unchecked) private final var dependents: [AnyNode] = []
    /// Observers, each already bound to this node's value; kept here, untyped, so that telling them costs no
    /// generic dispatch.
    @exclusivity(unchecked) private final var observers: [Observer] = []
    /// The read (see ``pull()``) that last brought this unnecessary node up to date.
    @exclusivity(unchecked) private final var pulledAt: UInt64 = 0

    /// One observation: its cancellation flag and the call that passes the node's current value.
    @usableFromInline
    final class Observer {
        let token: ObservationToken
        let notify: () -> Void
        @usableFromInline
        init(token: ObservationToken, notify: @escaping () -> Void) {
            self.token = token
            self.notify = notify
        }
    }

    @usableFromInline
    init(graph: Graph, height: Int) {
        self.graph = graph
        self.height = height
    }

    // MARK: Propagation

    /// Runs the step and, if the value changed, queues the dependents and schedules the observers.
    @inline(__always)
    final func recompute() {
        guard step() else { return }
        changed()
    }

    /// The value changed: dependents are queued and observers will be told.
    @usableFromInline @inline(__always)
    final func changed() {
        version &+= 1
        for dependent in dependents { graph.enqueue(dependent) }
        if !observers.isEmpty { graph.notifyObservers(of: self) }
    }

    /// Whether propagation keeps this node current: it is observed, or a necessary node depends on it.
    @usableFromInline
    final var isNecessary: Bool { !dependents.isEmpty || !observers.isEmpty }

    /// Brings a node that propagation does not keep current up to date (when its value is read): its unnecessary
    /// sources first, each node once per read.
    @usableFromInline
    final func pull() {
        graph.pullCount &+= 1
        pull(graph.pullCount)
    }

    private final func pull(_ read: UInt64) {
        guard pulledAt != read else { return }
        pulledAt = read
        for source in sources where !source.isNecessary { source.pull(read) }
        if step() { version &+= 1 }
    }

    // MARK: Observers

    var hasObservers: Bool { !observers.isEmpty }

    @usableFromInline
    func addObserver(_ observer: Observer) {
        let wasNecessary = isNecessary
        observers.removeAll { $0.token.isCancelled }
        observers.append(observer)
        if !wasNecessary { connect() }
    }

    /// Forgets cancelled observations; a node no longer necessary leaves its sources.
    @usableFromInline
    func dropCancelledObservers() {
        let wasNecessary = isNecessary
        observers.removeAll { $0.token.isCancelled }
        if wasNecessary && !isNecessary { disconnect() }
    }

    func fireObservers() {
        var sawCancelled = false
        for observer in observers {
            // A disposal during this loop (a cell rebound by an earlier observer) takes effect at once.
            if observer.token.isCancelled { sawCancelled = true } else { observer.notify() }
        }
        if sawCancelled { dropCancelledObservers() }
    }

    /// How many live observers are attached (for tests and diagnostics).
    public var observerCount: Int { observers.filter { !$0.token.isCancelled }.count }

    // MARK: Necessity

    /// The node has become necessary: its sources keep it current from now on, and it is brought up to date (in
    /// this propagation, in height order, if one is running; at once otherwise).
    private final func connect() {
        for source in sources { source.addDependent(self) }
        raiseHeight(above: sources.map(\.height).max() ?? -1)
        if graph.isStepping {
            graph.enqueue(self)
        } else if step() {
            version &+= 1
        }
    }

    /// The node is no longer necessary: its sources let go of it.
    private final func disconnect() {
        for source in sources { source.removeDependent(self) }
    }

    /// Makes `node` (now necessary) depend on this node.
    @usableFromInline
    final func addDependent(_ node: AnyNode) {
        let wasNecessary = isNecessary
        dependents.append(node)
        if !wasNecessary { connect() }
    }

    /// Removes one registration of `node` (it may depend on this node through more than one path, as a flatMap
    /// whose inner value is also its outer value does).
    @usableFromInline
    final func removeDependent(_ node: AnyNode) {
        guard let index = dependents.firstIndex(where: { $0 === node }) else { return }
        dependents.swapAt(index, dependents.count - 1)
        dependents.removeLast()
        if !isNecessary { disconnect() }
    }

    /// Raises this node (and so its dependents) above `sourceHeight`, as when a flatMap switches to a taller inner.
    @usableFromInline
    final func raiseHeight(above sourceHeight: Int) {
        guard height <= sourceHeight else { return }
        height = sourceHeight + 1
        for dependent in dependents { dependent.raiseHeight(above: height) }
    }

    /// How many necessary nodes depend on this one (for tests and diagnostics).
    var dependentCount: Int { dependents.count }
}

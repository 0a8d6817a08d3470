/// A node of the graph, whatever its value type: its height (longest path from an input), its dependents, and the
/// bookkeeping of propagation.
///
/// Ownership runs one way: a node keeps its sources alive, a source refers to its dependents weakly, so a derived
/// value that nothing observes or holds is released, and the graph never keeps observers alive.
public class AnyNode: @unchecked Sendable {
    final let graph: Graph
    /// 0 for inputs and constants; otherwise more than every source's height.
    @exclusivity(unchecked) final var height: Int
    /// Waiting in the graph's queue.
    @exclusivity(unchecked) final var queued = false
    /// Observers are to be told at the end of the current propagation.
    @exclusivity(unchecked) final var observersPending = false
    /// Grows each time the value changes.
    @exclusivity(unchecked) final var version: UInt64 = 0
    /// Set by a recomputation that must wait for a source still queued (a flatMap's new inner value).
    @exclusivity(unchecked) final var postponed = false
    /// Observers, each already bound to this node's value; kept here, untyped, so that telling them costs no
    /// generic dispatch.
    private final var observers: [Observer] = []

    /// One observation: its cancellation flag and the call that passes the node's current value.
    final class Observer {
        let token: ObservationToken
        let notify: () -> Void
        init(token: ObservationToken, notify: @escaping () -> Void) {
            self.token = token
            self.notify = notify
        }
    }
    @exclusivity(unchecked) private final var dependents: [Weak] = []

    init(graph: Graph, height: Int) {
        self.graph = graph
        self.height = height
    }

    /// Recomputes the value from the sources (nothing for inputs).
    func recompute() {}

    var hasObservers: Bool { !observers.isEmpty }

    func addObserver(_ observer: Observer) {
        observers.removeAll { $0.token.isCancelled }
        observers.append(observer)
    }

    func fireObservers() {
        var sawCancelled = false
        for observer in observers {
            // A disposal during this loop (a cell rebound by an earlier observer) takes effect at once.
            if observer.token.isCancelled { sawCancelled = true } else { observer.notify() }
        }
        if sawCancelled { observers.removeAll { $0.token.isCancelled } }
    }

    /// How many live observers are attached (for tests and diagnostics).
    public var observerCount: Int { observers.filter { !$0.token.isCancelled }.count }

    /// Makes `node` depend on this node, and keeps it above this node.
    func addDependent(_ node: AnyNode) {
        dependents.append(Weak(node))
        node.raiseHeight(above: height)
    }

    /// Removes one registration of `node` (it may depend on this node through more than one path, as a flatMap
    /// whose inner value is also its outer value does).
    func removeDependent(_ node: AnyNode) {
        if let index = dependents.firstIndex(where: { $0.node === node }) { dependents.remove(at: index) }
        dependents.removeAll { $0.node == nil }
    }

    /// Queues every live dependent for recomputation.
    final func invalidateDependents() {
        var sawReleased = false
        // Read each weak reference in place rather than copying it out of the array.
        dependents.withUnsafeBufferPointer { entries in
            guard let base = entries.baseAddress else { return }
            for index in 0..<entries.count {
                if let node = base[index].node { graph.enqueue(node) } else { sawReleased = true }
            }
        }
        if sawReleased { dependents.removeAll { $0.node == nil } }
    }

    /// Raises this node (and so its dependents) above `sourceHeight`, as when a flatMap switches to a taller inner.
    func raiseHeight(above sourceHeight: Int) {
        guard height <= sourceHeight else { return }
        height = sourceHeight + 1
        for entry in dependents { entry.node?.raiseHeight(above: height) }
    }

    var dependentCount: Int { dependents.reduce(0) { $0 + ($1.node == nil ? 0 : 1) } }

    struct Weak {
        weak var node: AnyNode?
        init(_ node: AnyNode) { self.node = node }
    }
}

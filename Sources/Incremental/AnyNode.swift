/// A node of the graph, whatever its value type: its height (longest path from an input), its dependents, and the
/// bookkeeping of propagation.
///
/// Ownership runs one way: a node keeps its sources alive, a source refers to its dependents weakly, so a derived
/// value that nothing observes or holds is released, and the graph never keeps observers alive.
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
    /// Observers, each already bound to this node's value; kept here, untyped, so that telling them costs no
    /// generic dispatch.
    private final var observers: [Observer] = []

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
    @exclusivity(unchecked) private final var dependents: [Weak] = []
    /// This node's entry in its sources' dependents (one box, shared: see ``Weak``).
    private final lazy var weakSelf = Weak(self)

    @usableFromInline
    init(graph: Graph, height: Int) {
        self.graph = graph
        self.height = height
    }

    /// Runs the step and, if the value changed, queues the dependents and schedules the observers.
    @inline(__always)
    final func recompute() {
        guard step() else { return }
        changed()
    }

    /// The value changed: dependents are queued and observers will be told.
    @usableFromInline
    final func changed() {
        version &+= 1
        invalidateDependents()
        graph.notifyObservers(of: self)
    }

    var hasObservers: Bool { !observers.isEmpty }

    @usableFromInline
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
    @usableFromInline
    func addDependent(_ node: AnyNode) {
        dependents.append(node.weakSelf)
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
        for entry in dependents {
            // The strong reference the weak load gives is handed to the queue, not retained again.
            if let node = entry.node { graph.enqueue(node) } else { sawReleased = true }
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

    /// A weak reference in a box: reading it loads the reference in place (a weak reference inside a struct is
    /// copied, loaded and destroyed on every read), and one box per node serves all of its sources.
    final class Weak {
        weak var node: AnyNode?
        init(_ node: AnyNode) { self.node = node }
    }
}

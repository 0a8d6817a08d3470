/// A node of the graph, whatever its value type: its height (longest path from an input), its dependents, and the
/// bookkeeping of propagation.
///
/// Ownership runs one way: a node keeps its sources alive, a source refers to its dependents weakly, so a derived
/// value that nothing observes or holds is released, and the graph never keeps observers alive.
public class AnyNode: @unchecked Sendable {
    let graph: Graph
    /// 0 for inputs and constants; otherwise more than every source's height.
    var height: Int
    /// Waiting in the graph's queue.
    var queued = false
    /// Observers are to be told at the end of the current propagation.
    var observersPending = false
    /// Grows each time the value changes.
    var version: UInt64 = 0
    private var dependents: [Weak] = []

    init(graph: Graph, height: Int) {
        self.graph = graph
        self.height = height
    }

    /// Recomputes the value from the sources (nothing for inputs).
    func recompute() {}

    var hasObservers: Bool { false }

    func fireObservers() {}

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
    func invalidateDependents() {
        var sawReleased = false
        for entry in dependents {
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

    struct Weak {
        weak var node: AnyNode?
        init(_ node: AnyNode) { self.node = node }
    }
}

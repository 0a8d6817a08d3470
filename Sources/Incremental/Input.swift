/// A writable source of a changing value: the state an app keeps (a post's like count, a loading flag).
public final class Input<A>: @unchecked Sendable {
    /// The read-only view of this input, to derive from and observe.
    public let i: I<A>

    /// An input whose writes are applied by `apply` (which compares, or not, with the value before).
    @inlinable
    init(_ value: A, graph: Graph, apply: @escaping (I<A>, A) -> Bool) {
        let node = I(graph: graph, value: value)
        let target = Unowned(node)
        node.step = {
            target.use { node in
                guard let pending = node.pending else { return false }
                node.pending = nil
                return apply(node, pending)
            }
        }
        self.i = node
    }

    /// An input that propagates every write (its type has no equality to compare with).
    @inlinable
    public convenience init(_ value: A, graph: Graph = .main) {
        self.init(value, graph: graph) { node, value in node.replace(value) }
    }

    /// The current value, including a write made earlier in the current batch. Read it on the graph's actor.
    @inlinable
    public var value: A { i.pending ?? i.current }

    /// Writes a new value on the graph's actor and propagates it at once (or when the enclosing batch ends).
    @inlinable
    public func write(_ value: A) {
        let node = i
        node.graph.checkIsolation()
        node.pending = value
        node.graph.enqueue(node)
        node.graph.propagate()
    }

    /// Changes the value in place.
    @inlinable
    public func change(_ body: (inout A) -> Void) {
        var copy = i.current
        body(&copy)
        write(copy)
    }
}

extension Input where A: Equatable {
    /// An input whose equal writes propagate nothing.
    @inlinable
    public convenience init(_ value: A, graph: Graph = .main) {
        self.init(value, graph: graph) { node, value in node.update(value) }
    }

    /// An input whose equal writes propagate nothing, unless `alwaysPropagate` is set.
    @inlinable
    public convenience init(_ value: A, alwaysPropagate: Bool, graph: Graph = .main) {
        if alwaysPropagate {
            self.init(value, graph: graph) { node, value in node.replace(value) }
        } else {
            self.init(value, graph: graph) { node, value in node.update(value) }
        }
    }
}

extension Input where A: Sendable {
    /// Writes from any thread: the write is delivered to the graph's actor, in order, and writes that arrive
    /// together propagate as one transaction.
    public func send(_ value: A) {
        i.graph.deliver { [self] in
            write(value)
        }
    }
}

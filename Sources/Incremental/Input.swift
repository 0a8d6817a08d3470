/// A writable source of a changing value: the state an app keeps (a post's like count, a loading flag).
public final class Input<A>: @unchecked Sendable {
    /// The read-only view of this input, to derive from and observe.
    public let i: I<A>
    /// The latest write not yet propagated (inside a batch). Applied when the input's turn comes, so that the
    /// equality cutoff compares with the value before the batch: writing 5, 7, 5 in one batch changes nothing.
    private var pending: A?

    init(_ value: A, graph: Graph, equal: ((A, A) -> Bool)?) {
        self.i = I(graph: graph, value: value, equal: equal)
        i.replaceCompute { [weak self, unowned i] in
            guard let self, let pending = self.pending else {
                i.postponed = true  // nothing to apply: keep the value
                return i.value
            }
            self.pending = nil
            return pending
        }
    }

    /// An input that propagates every write (its type has no equality to compare with).
    public convenience init(_ value: A, graph: Graph = .main) {
        self.init(value, graph: graph, equal: nil)
    }

    /// The current value, including a write made earlier in the current batch. Read it on the graph's actor.
    public var value: A { pending ?? i.value }

    /// Writes a new value on the graph's actor and propagates it at once (or when the enclosing batch ends).
    public func write(_ value: A) {
        let graph = i.graph
        graph.checkIsolation()
        pending = value
        graph.enqueue(i)
        graph.propagate()
    }

    /// Changes the value in place.
    public func change(_ body: (inout A) -> Void) {
        var copy = i.value
        body(&copy)
        write(copy)
    }
}

extension Input where A: Equatable {
    /// An input whose equal writes propagate nothing.
    public convenience init(_ value: A, graph: Graph = .main) {
        self.init(value, graph: graph, equal: ==)
    }

    /// An input whose equal writes propagate nothing, unless `alwaysPropagate` is set.
    public convenience init(_ value: A, alwaysPropagate: Bool, graph: Graph = .main) {
        self.init(value, graph: graph, equal: alwaysPropagate ? nil : (==))
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

/// The wiring of `flatMap`: follows the inner value that the outer value picks, switching when the outer changes.
enum FlatMap {
    /// What a flatMap node remembers between recomputations.
    final class State<A, B> {
        var inner: I<B>
        var outerVersion: UInt64
        weak var node: I<B>?

        init(inner: I<B>, outerVersion: UInt64) {
            self.inner = inner
            self.outerVersion = outerVersion
        }
    }

    static func make<A, B>(outer: I<A>, transform: @escaping (A) -> I<B>, equal: ((B, B) -> Bool)?) -> I<B> {
        let state = State<A, B>(inner: transform(outer.value), outerVersion: outer.version)
        let node = I<B>.derived(graph: outer.graph, sources: [outer, state.inner], equal: equal) { state.inner.value }
        state.node = node
        node.replaceCompute { [unowned outer] in
            guard let node = state.node else { return state.inner.value }
            if outer.version != state.outerVersion {
                state.outerVersion = outer.version
                let next = transform(outer.value)
                if next !== state.inner {
                    // Let go of the old inner graph; follow the new one, staying above it.
                    state.inner.removeDependent(node)
                    state.inner = next
                    next.addDependent(node)
                }
            }
            if state.inner.queued {
                // The inner value is not settled yet in this propagation: come back after it.
                node.postponed = true
                node.graph.enqueue(node)
                return node.value
            }
            return state.inner.value
        }
        return node
    }
}

/// The wiring of `flatMap`: follows the inner value that the outer value picks, switching when the outer changes.
enum FlatMap {
    /// What a flatMap node remembers between recomputations.
    final class State<B> {
        var inner: I<B>
        var outerVersion: UInt64

        init(inner: I<B>, outerVersion: UInt64) {
            self.inner = inner
            self.outerVersion = outerVersion
        }
    }

    /// A flatMap node; `apply` stores a new inner value in it (comparing, or not) and answers whether it changed.
    static func make<A, B>(outer: I<A>, transform: @escaping (A) -> I<B>, apply: @escaping (I<B>, B) -> Bool) -> I<B> {
        outer.graph.checkIsolation()
        let state = State(inner: transform(outer.value), outerVersion: outer.version)
        let node = I<B>.derived(graph: outer.graph, sources: [outer, state.inner], value: state.inner.value)
        node.step = { [unowned(unsafe) outer, unowned(unsafe) node] in
            if outer.version != state.outerVersion {
                state.outerVersion = outer.version
                let next = transform(outer.current)
                if next !== state.inner {
                    // Follow the new inner value and let go of the old one (released once nothing holds it).
                    let old = state.inner
                    state.inner = next
                    node.sources = [outer, next]
                    if node.isNecessary {
                        next.addDependent(node)
                        node.raiseHeight(above: next.height)
                        old.removeDependent(node)
                    }
                }
            }
            let inner = state.inner
            if node.isNecessary && inner.queued {
                // The inner value is not settled yet in this propagation: come back after it.
                node.graph.enqueue(node)
                return false
            }
            return apply(node, inner.value)
        }
        return node
    }
}

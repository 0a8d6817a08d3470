// Incremental: reactive values that keep views in sync with changing state — inputs, derived values recomputed
// glitch-free in height order with equality cut-off, batches, flatMap, incremental arrays, observations and the
// Box that ties bindings to a view's lifetime — confined to one actor, with no dependencies.

/// A value that changes over time, read-only: an ``Input``'s value, or one derived from others with `map`,
/// `flatMap` and `zip`.
///
/// Derived values recompute glitch-free: within one propagation every node recomputes at most once, after all of
/// its sources, and observers see only consistent states. For `Equatable` values an equal result stops propagation.
///
/// The builders are `@inlinable`: each node's step (compute, compare, store) is compiled where the value is derived,
/// for its concrete types, which is most of what a propagation costs (see Benchmarks/HISTORY.md).
@dynamicMemberLookup
public final class I<A>: AnyNode, @unchecked Sendable {
    /// The value, as the graph's steps read and write it.
    @exclusivity(unchecked) @usableFromInline final var current: A
    /// An ``Input``'s write not yet applied (inside a batch): applied when the input's turn comes, so that the
    /// equality cutoff compares with the value before the batch, and 5, 7, 5 in one batch is no change.
    @exclusivity(unchecked) @usableFromInline final var pending: A?

    /// The current value. Read it on the graph's actor. (A derived value nothing observes is brought up to date
    /// as it is read.)
    @inlinable public var value: A {
        if !sources.isEmpty && !isNecessary { pull() }
        return current
    }

    @usableFromInline
    init(graph: Graph, value: A, height: Int = 0) {
        self.current = value
        super.init(graph: graph, height: height)
    }

    /// A value that never changes.
    public convenience init(constant value: A, graph: Graph = .main) {
        self.init(graph: graph, value: value)
    }

    /// Stores `newValue` (no equality to compare with): always a change.
    @inlinable @inline(__always)
    final func replace(_ newValue: A) -> Bool {
        current = newValue
        return true
    }

    /// Calls `callback` with the current value now and with every new value after each propagation, until the
    /// returned disposable is disposed or released. The observation keeps this value (and what it derives from)
    /// alive; capture owners weakly in `callback` to avoid a cycle.
    @inlinable
    public func observe(_ callback: @escaping (A) -> Void) -> Disposable {
        graph.checkIsolation()
        let token = ObservationToken()
        addObserver(Observer(token: token) { [unowned(unsafe) self] in callback(self.current) })
        callback(current)
        // The closure holds the node: an observed node lives as long as its observation. Disposing flips the token
        // (safe from any thread: the node is told nothing more) and, on the graph's actor, lets go of the entry.
        return Disposable { [self] in
            token.cancel()
            graph.onActor { self.dropCancelledObservers() }
        }
    }

    // MARK: Building derived values

    /// A node derived from `sources`, above all of them, starting at `value`; its step is set by the caller. The
    /// node keeps its sources alive (in ``AnyNode/sources``), so steps capture them, and their node, unowned: the
    /// node owns its step, and only a live node's step runs.
    @usableFromInline
    static func derived(graph: Graph, sources: [AnyNode], value: A) -> I<A> {
        let node = I(graph: graph, value: value, height: (sources.map(\.height).max() ?? -1) + 1)
        node.sources = sources
        return node
    }

    /// A value computed from this one; recomputed whenever this one changes.
    @inlinable
    public func map<B>(_ transform: @escaping (A) -> B) -> I<B> {
        graph.checkIsolation()
        let node = I<B>.derived(graph: graph, sources: [self], value: transform(value))
        let source = Unowned(self)
        let target = Unowned(node)
        node.step = { target.use { node in source.use { node.replace(transform($0.current)) } } }
        return node
    }

    /// A value computed from this one; an equal result does not propagate.
    @inlinable
    public func map<B: Equatable>(_ transform: @escaping (A) -> B) -> I<B> {
        graph.checkIsolation()
        let node = I<B>.derived(graph: graph, sources: [self], value: transform(value))
        let source = Unowned(self)
        let target = Unowned(node)
        node.step = { target.use { node in source.use { node.update(transform($0.current)) } } }
        return node
    }

    /// The value at `keyPath` of this value.
    @inlinable
    public subscript<B>(dynamicMember keyPath: KeyPath<A, B>) -> I<B> {
        map { $0[keyPath: keyPath] }
    }

    /// The value at `keyPath` of this value; an equal result does not propagate.
    @inlinable
    public subscript<B: Equatable>(dynamicMember keyPath: KeyPath<A, B>) -> I<B> {
        map { $0[keyPath: keyPath] }
    }

    /// A value combined from this one and `other`.
    @inlinable
    public func zip<B, C>(_ other: I<B>, _ combine: @escaping (A, B) -> C) -> I<C> {
        graph.checkIsolation()
        let node = I<C>.derived(graph: graph, sources: [self, other], value: combine(value, other.value))
        let (first, second, target) = (Unowned(self), Unowned(other), Unowned(node))
        node.step = {
            target.use { node in first.use { a in second.use { b in node.replace(combine(a.current, b.current)) } } }
        }
        return node
    }

    /// A value combined from this one and `other`; an equal result does not propagate.
    @inlinable
    public func zip<B, C: Equatable>(_ other: I<B>, _ combine: @escaping (A, B) -> C) -> I<C> {
        graph.checkIsolation()
        let node = I<C>.derived(graph: graph, sources: [self, other], value: combine(value, other.value))
        let (first, second, target) = (Unowned(self), Unowned(other), Unowned(node))
        node.step = {
            target.use { node in first.use { a in second.use { b in node.update(combine(a.current, b.current)) } } }
        }
        return node
    }

    /// A value combined from this one and two others.
    @inlinable
    public func zip<B, C, D>(_ second: I<B>, _ third: I<C>, _ combine: @escaping (A, B, C) -> D) -> I<D> {
        graph.checkIsolation()
        let node = I<D>.derived(
            graph: graph, sources: [self, second, third], value: combine(value, second.value, third.value))
        let (a, b, c, target) = (Unowned(self), Unowned(second), Unowned(third), Unowned(node))
        node.step = {
            target.use { node in node.replace(combine(a.use(\.current), b.use(\.current), c.use(\.current))) }
        }
        return node
    }

    /// A value combined from this one and two others; an equal result does not propagate.
    @inlinable
    public func zip<B, C, D: Equatable>(_ second: I<B>, _ third: I<C>, _ combine: @escaping (A, B, C) -> D) -> I<D> {
        graph.checkIsolation()
        let node = I<D>.derived(
            graph: graph, sources: [self, second, third], value: combine(value, second.value, third.value))
        let (a, b, c, target) = (Unowned(self), Unowned(second), Unowned(third), Unowned(node))
        node.step = {
            target.use { node in node.update(combine(a.use(\.current), b.use(\.current), c.use(\.current))) }
        }
        return node
    }

    /// A value combined from any number of values of one type (a fan-in).
    @inlinable
    public static func combine<B>(_ values: [I<B>], graph: Graph = .main, _ combine: @escaping ([B]) -> A) -> I<A> {
        graph.checkIsolation()
        let node = I<A>.derived(graph: graph, sources: values, value: combine(values.map { $0.value }))
        let target = Unowned(node)
        node.step = { target.use { $0.replace(combine(values.map { $0.current })) } }
        return node
    }

    /// The value of whichever value `transform` picks from this one; when this one changes, the old inner value is
    /// let go and the new one followed.
    public func flatMap<B>(_ transform: @escaping (A) -> I<B>) -> I<B> {
        FlatMap.make(outer: self, transform: transform) { node, value in node.replace(value) }
    }

    /// Like ``flatMap(_:)``, with an equal result not propagating.
    public func flatMap<B: Equatable>(_ transform: @escaping (A) -> I<B>) -> I<B> {
        FlatMap.make(outer: self, transform: transform) { node, value in node.update(value) }
    }
}

extension I where A: Equatable {
    /// A value that never changes.
    public convenience init(constant value: A, graph: Graph = .main) {
        self.init(graph: graph, value: value)
    }

    /// A fan-in whose equal results do not propagate.
    @inlinable
    public static func combine<B>(_ values: [I<B>], graph: Graph = .main, _ combine: @escaping ([B]) -> A) -> I<A> {
        graph.checkIsolation()
        let node = I<A>.derived(graph: graph, sources: values, value: combine(values.map { $0.value }))
        let target = Unowned(node)
        node.step = { target.use { $0.update(combine(values.map { $0.current })) } }
        return node
    }

    /// Stores `newValue` unless it equals the current value; answers whether it changed.
    @inlinable @inline(__always)
    final func update(_ newValue: A) -> Bool {
        if newValue == current { return false }
        current = newValue
        return true
    }
}

/// A reference that a step uses without retaining it: the node owns its step and keeps its sources alive, so
/// every object a step refers to outlives each of its calls.
@usableFromInline @frozen
struct Unowned<Object: AnyObject> {
    @usableFromInline let reference: Unmanaged<Object>

    @inlinable
    init(_ object: Object) {
        reference = .passUnretained(object)
    }

    @inlinable @inline(__always)
    func use<R>(_ body: (Object) -> R) -> R {
        reference._withUnsafeGuaranteedRef(body)
    }
}

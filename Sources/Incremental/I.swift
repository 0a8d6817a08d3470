/// A value that changes over time, read-only: an ``Input``'s value, or one derived from others with `map`,
/// `flatMap` and `zip`.
///
/// Derived values recompute glitch-free: within one propagation every node recomputes at most once, after all of
/// its sources, and observers see only consistent states. For `Equatable` values an equal result stops propagation.
@dynamicMemberLookup
public final class I<A>: AnyNode, @unchecked Sendable {
    /// The current value. Read it on the graph's actor.
    @exclusivity(unchecked) public internal(set) var value: A
    private let hasEquality: Bool
    private let equal: (A, A) -> Bool
    private var compute: (() -> A)?

    init(graph: Graph, value: A, height: Int = 0, equal: ((A, A) -> Bool)?, compute: (() -> A)? = nil) {
        self.value = value
        self.hasEquality = equal != nil
        self.equal = equal ?? { _, _ in false }
        self.compute = compute
        super.init(graph: graph, height: height)
    }

    /// A value that never changes.
    public convenience init(constant value: A, graph: Graph = .main) {
        self.init(graph: graph, value: value, equal: nil)
    }

    /// Sets a new value: unless it equals the old one, dependents are queued and observers will be told.
    func set(_ newValue: A) {
        if hasEquality && equal(value, newValue) { return }
        value = newValue
        version &+= 1
        invalidateDependents()
        graph.notifyObservers(of: self)
    }

    override func recompute() {
        guard let compute else { return }
        let newValue = compute()
        if postponed {
            postponed = false
            return
        }
        set(newValue)
    }

    /// Calls `callback` with the current value now and with every new value after each propagation, until the
    /// returned disposable is disposed or released. The observation keeps this value (and what it derives from)
    /// alive; capture owners weakly in `callback` to avoid a cycle.
    public func observe(_ callback: @escaping (A) -> Void) -> Disposable {
        graph.checkIsolation()
        let token = ObservationToken()
        addObserver(Observer(token: token) { [unowned self] in callback(self.value) })
        callback(value)
        // The closure holds the node: an observed node lives as long as its observation. Disposing only flips the
        // token (safe from any thread); the entry is dropped on the graph's actor.
        return Disposable { [self] in
            token.cancel()
            _ = self
        }
    }

    // MARK: Building derived values

    /// A node computed from sources; it depends on each of them.
    static func derived(
        graph: Graph, sources: [AnyNode], equal: ((A, A) -> Bool)?, _ compute: @escaping () -> A
    ) -> I<A> {
        graph.checkIsolation()
        let node = I(
            graph: graph, value: compute(), height: (sources.map(\.height).max() ?? -1) + 1, equal: equal,
            compute: compute)
        for source in sources { source.addDependent(node) }
        return node
    }

    func map<B>(equal: ((B, B) -> Bool)?, _ transform: @escaping (A) -> B) -> I<B> {
        I<B>.derived(graph: graph, sources: [self], equal: equal) { transform(self.value) }
    }

    /// A value computed from this one; recomputed whenever this one changes.
    public func map<B>(_ transform: @escaping (A) -> B) -> I<B> {
        map(equal: nil, transform)
    }

    /// A value computed from this one; an equal result does not propagate.
    public func map<B: Equatable>(_ transform: @escaping (A) -> B) -> I<B> {
        map(equal: ==, transform)
    }

    /// The value at `keyPath` of this value.
    public subscript<B>(dynamicMember keyPath: KeyPath<A, B>) -> I<B> {
        map { $0[keyPath: keyPath] }
    }

    /// The value at `keyPath` of this value; an equal result does not propagate.
    public subscript<B: Equatable>(dynamicMember keyPath: KeyPath<A, B>) -> I<B> {
        map { $0[keyPath: keyPath] }
    }

    /// A value combined from this one and `other`.
    public func zip<B, C>(_ other: I<B>, _ combine: @escaping (A, B) -> C) -> I<C> {
        I<C>.derived(graph: graph, sources: [self, other], equal: nil) { combine(self.value, other.value) }
    }

    /// A value combined from this one and `other`; an equal result does not propagate.
    public func zip<B, C: Equatable>(_ other: I<B>, _ combine: @escaping (A, B) -> C) -> I<C> {
        I<C>.derived(graph: graph, sources: [self, other], equal: ==) { combine(self.value, other.value) }
    }

    /// A value combined from this one and two others.
    public func zip<B, C, D>(_ second: I<B>, _ third: I<C>, _ combine: @escaping (A, B, C) -> D) -> I<D> {
        I<D>.derived(graph: graph, sources: [self, second, third], equal: nil) {
            combine(self.value, second.value, third.value)
        }
    }

    /// A value combined from this one and two others; an equal result does not propagate.
    public func zip<B, C, D: Equatable>(_ second: I<B>, _ third: I<C>, _ combine: @escaping (A, B, C) -> D) -> I<D> {
        I<D>.derived(graph: graph, sources: [self, second, third], equal: ==) {
            combine(self.value, second.value, third.value)
        }
    }

    /// A value combined from any number of values of one type (a fan-in).
    public static func combine<B>(_ values: [I<B>], graph: Graph = .main, _ combine: @escaping ([B]) -> A) -> I<A> {
        derived(graph: graph, sources: values, equal: nil) { combine(values.map(\.value)) }
    }

    /// The value of whichever value `transform` picks from this one; when this one changes, the old inner value is
    /// let go and the new one followed.
    public func flatMap<B>(_ transform: @escaping (A) -> I<B>) -> I<B> {
        FlatMap.make(outer: self, transform: transform, equal: nil)
    }

    /// Like ``flatMap(_:)``, with an equal result not propagating.
    public func flatMap<B: Equatable>(_ transform: @escaping (A) -> I<B>) -> I<B> {
        FlatMap.make(outer: self, transform: transform, equal: ==)
    }

    func replaceCompute(_ compute: @escaping () -> A) {
        self.compute = compute
    }
}

extension I where A: Equatable {
    /// A value that never changes.
    public convenience init(constant value: A, graph: Graph = .main) {
        self.init(graph: graph, value: value, equal: ==)
    }
}

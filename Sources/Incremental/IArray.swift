/// One change to an incremental array, with indices as they are when the change is applied in order.
public enum ArrayChange<Element> {
    case insert(Element, at: Int)
    case remove(at: Int)
    case update(Element, at: Int)
}

extension ArrayChange: Equatable where Element: Equatable {}
extension ArrayChange: Sendable where Element: Sendable {}

/// An array that reports what changed (inserts, removals, updates) instead of its whole new value, for feeds whose
/// views animate row by row. `map` and `filter` stay incremental: they transform only the changed elements.
/// Like the rest of a graph, it is used on the graph's actor.
public final class IArray<Element>: @unchecked Sendable {
    /// The current elements.
    public private(set) var elements: [Element]
    let graph: Graph
    private var observers: [(token: ObservationToken, callback: ([ArrayChange<Element>]) -> Void)] = []
    /// Keeps a derived array's subscription to its source alive as long as the derived array.
    private var upstream: Disposable?

    /// An array with these elements, in `graph`.
    public init(_ elements: [Element] = [], graph: Graph = .main) {
        self.elements = elements
        self.graph = graph
    }

    /// Applies changes in order and tells observers once, with all of them.
    public func apply(_ changes: [ArrayChange<Element>]) {
        graph.checkIsolation()
        guard !changes.isEmpty else { return }
        for change in changes {
            switch change {
            case .insert(let element, let index): elements.insert(element, at: index)
            case .remove(let index): elements.remove(at: index)
            case .update(let element, let index): elements[index] = element
            }
        }
        observers.removeAll { $0.token.isCancelled }
        for observer in observers where !observer.token.isCancelled { observer.callback(changes) }
    }

    public func insert(_ element: Element, at index: Int) { apply([.insert(element, at: index)]) }
    public func append(_ element: Element) { apply([.insert(element, at: elements.count)]) }
    public func remove(at index: Int) { apply([.remove(at: index)]) }
    public func update(_ element: Element, at index: Int) { apply([.update(element, at: index)]) }

    /// Calls `callback` with the current elements as inserts now, then with every later batch of changes.
    public func observe(_ callback: @escaping ([ArrayChange<Element>]) -> Void) -> Disposable {
        graph.checkIsolation()
        let token = ObservationToken()
        observers.append((token, callback))
        callback(elements.enumerated().map { .insert($1, at: $0) })
        return Disposable { [self] in
            token.cancel()
            _ = self
        }
    }

    /// The elements transformed by `transform`; only inserted and updated elements are transformed again.
    public func map<B>(_ transform: @escaping (Element) -> B) -> IArray<B> {
        let result = IArray<B>(graph: graph)
        result.upstream = observe { [weak result] changes in
            result?.apply(
                changes.map { change in
                    switch change {
                    case .insert(let element, let index): .insert(transform(element), at: index)
                    case .remove(let index): .remove(at: index)
                    case .update(let element, let index): .update(transform(element), at: index)
                    }
                })
        }
        return result
    }

    /// The elements that satisfy `isIncluded`; only inserted and updated elements are tested again.
    public func filter(_ isIncluded: @escaping (Element) -> Bool) -> IArray<Element> {
        let result = IArray<Element>(graph: graph)
        var included: [Bool] = []  // one per source element
        func rank(_ index: Int) -> Int { included[..<index].reduce(0) { $0 + ($1 ? 1 : 0) } }
        result.upstream = observe { [weak result] changes in
            var derived: [ArrayChange<Element>] = []
            for change in changes {
                switch change {
                case .insert(let element, let index):
                    let keep = isIncluded(element)
                    if keep { derived.append(.insert(element, at: rank(index))) }
                    included.insert(keep, at: index)
                case .remove(let index):
                    if included[index] { derived.append(.remove(at: rank(index))) }
                    included.remove(at: index)
                case .update(let element, let index):
                    let keep = isIncluded(element)
                    switch (included[index], keep) {
                    case (true, true): derived.append(.update(element, at: rank(index)))
                    case (true, false): derived.append(.remove(at: rank(index)))
                    case (false, true): derived.append(.insert(element, at: rank(index)))
                    case (false, false): break
                    }
                    included[index] = keep
                }
            }
            result?.apply(derived)
        }
        return result
    }
}

/// An object (a view) together with everything its bindings need, so that the bindings live exactly as long as the
/// box: the observations of the values it shows and the boxes of the objects attached to it (its subviews).
/// Releasing the box ends every binding; no disposables for the caller to keep, no `[weak self]` to remember.
///
/// ```swift
/// let spinner = Box(UIActivityIndicatorView())
/// spinner.bindIsAnimating(to: feed.isRefreshing)
/// let label = Box(UILabel())
/// label.bind(\.text, to: post.likedBy)              // applied now, and on every change
/// let card = Box(UIView())
/// card.addSubview(spinner)                           // the card's box now keeps the spinner's
/// card.addSubview(label)
/// ```
///
/// Binding the same key path again replaces the earlier binding: a reused cell bound to a second post never shows
/// the first post's changes. Use a box on the graph's actor, like the values it binds.
public final class Box<A: AnyObject> {
    @usableFromInline
    enum Reference {
        case strong(A)
        case borrowed(Weak)
    }

    @usableFromInline
    final class Weak {
        @usableFromInline weak var object: A?
        init(_ object: A) { self.object = object }
    }

    @usableFromInline let reference: Reference
    /// Bindings by the key path they set; a new binding of the same key path replaces the old one.
    private var bindings: [AnyKeyPath: Disposable] = [:]
    /// Observations that set no key path (``observe(_:_:)``), and everything ``keep(_:)`` was given.
    private var kept: [AnyObject] = []

    /// A box that owns `object`: the object lives at least as long as the box.
    public init(_ object: A) {
        reference = .strong(object)
    }

    /// A box kept by `object` itself (a table cell holding the box of its own bindings): the box does not keep the
    /// object alive, so the object and its box are released together.
    public init(owner object: A) {
        reference = .borrowed(Weak(object))
    }

    /// The object in the box.
    public var unbox: A {
        switch reference {
        case .strong(let object): object
        case .borrowed(let weak): weak.object!
        }
    }

    deinit {
        // End the bindings before the object goes, so that none of them ever writes to a released object.
        for binding in bindings.values { binding.dispose() }
        for case let disposable as Disposable in kept { disposable.dispose() }
    }

    // MARK: Key-path bindings
    //
    // A key path is applied by the runtime at every change; on Linux that costs about 300 ns, as much as the rest of
    // a propagation (the compiler does not turn a key path captured by generic code into a direct access;
    // Benchmarks/HISTORY.md). Where that matters, `bind(_:to:setting:)` takes the setter as a closure and costs what a
    // hand-written `observe` closure costs; the key path then only names the binding.

    /// Sets the object's property at `keyPath` to `value` now and after every change, on the graph's actor.
    @inlinable
    public func bind<V>(_ keyPath: ReferenceWritableKeyPath<A, V>, to value: I<V>) {
        let observation =
            switch reference {
            case .strong(let object):
                value.observe { [unowned object] new in object[keyPath: keyPath] = new }
            case .borrowed(let weak):
                value.observe { new in weak.object?[keyPath: keyPath] = new }
            }
        replaceBinding(of: keyPath, with: observation)
    }

    /// Sets the optional property at `keyPath` (a label's text, an image view's image) to `value`.
    @inlinable
    public func bind<V>(_ keyPath: ReferenceWritableKeyPath<A, V?>, to value: I<V>) {
        let observation =
            switch reference {
            case .strong(let object):
                value.observe { [unowned object] new in object[keyPath: keyPath] = new }
            case .borrowed(let weak):
                value.observe { new in weak.object?[keyPath: keyPath] = new }
            }
        replaceBinding(of: keyPath, with: observation)
    }

    /// Sets the property at `keyPath` to `transform` of `value` (`bind(\.text, to: likeCount) { "\($0) likes" }`).
    @inlinable
    public func bind<V, W>(_ keyPath: ReferenceWritableKeyPath<A, W>, to value: I<V>, _ transform: @escaping (V) -> W) {
        let observation =
            switch reference {
            case .strong(let object):
                value.observe { [unowned object] new in object[keyPath: keyPath] = transform(new) }
            case .borrowed(let weak):
                value.observe { new in weak.object?[keyPath: keyPath] = transform(new) }
            }
        replaceBinding(of: keyPath, with: observation)
    }

    /// Binds `value` to the property named by `keyPath` with `set`, a setter written out
    /// (`box.bind(\.text, to: title) { $0.text = $1 }`): like ``bind(_:to:)``, without the runtime's key-path
    /// application at each change. Binding the same key path again, either way, replaces it.
    @inlinable
    public func bind<V, W>(
        _ keyPath: ReferenceWritableKeyPath<A, W>, to value: I<V>, setting set: @escaping (A, V) -> Void
    ) {
        replaceBinding(of: keyPath, with: observation(of: value, set))
    }

    /// Ends the binding of `keyPath`, if any; the property keeps its last value.
    public func unbind(_ keyPath: PartialKeyPath<A>) {
        bindings.removeValue(forKey: keyPath)?.dispose()
    }

    /// Ends every key-path binding (before binding a reused cell to another item).
    public func unbindAll() {
        let old = bindings
        bindings = [:]
        for binding in old.values { binding.dispose() }
    }

    /// Calls `apply` with the object and `value` now and after every change, for as long as the box lives: for
    /// what a property cannot say (an activity indicator's `startAnimating()`).
    @inlinable
    public func observe<V>(_ value: I<V>, _ apply: @escaping (A, V) -> Void) {
        keep(observation(of: value, apply))
    }

    /// Calls `apply` with the object and each batch of changes to `array` (inserts, removals, updates), for as long
    /// as the box lives: a table view following a feed.
    public func observe<E>(_ array: IArray<E>, _ apply: @escaping (A, [ArrayChange<E>]) -> Void) {
        let disposable: Disposable
        switch reference {
        case .strong(let object):
            disposable = array.observe { [unowned object] changes in apply(object, changes) }
        case .borrowed(let weak):
            disposable = array.observe { changes in
                if let object = weak.object { apply(object, changes) }
            }
        }
        keep(disposable)
    }

    /// The box of `child`, kept as long as this box, after `attach` joined the two objects
    /// (`card.add(label) { $0.addSubview($1) }`).
    public func add<B>(_ child: Box<B>, using attach: (A, B) -> Void) {
        attach(unbox, child.unbox)
        kept.append(child)
    }

    /// Keeps `reference` (a derived value, a disposable, a helper object) as long as this box lives.
    public func keep(_ reference: AnyObject) {
        kept.append(reference)
    }

    // MARK: Building bindings

    /// Makes `observation` the binding of `keyPath`, ending the one it replaces (which cannot set the property in
    /// between: both run on the graph's actor).
    @usableFromInline
    func replaceBinding(of keyPath: AnyKeyPath, with observation: Disposable) {
        bindings.updateValue(observation, forKey: keyPath)?.dispose()
    }

    /// An observation that applies `value` to the object. The object is not retained by it: the box keeps an owned
    /// object alive, a borrowed object keeps the box, and the box ends its observations before either goes.
    @usableFromInline
    func observation<V>(of value: I<V>, _ apply: @escaping (A, V) -> Void) -> Disposable {
        switch reference {
        case .strong(let object):
            return value.observe { [unowned object] new in apply(object, new) }
        case .borrowed(let weak):
            return value.observe { new in
                if let object = weak.object { apply(object, new) }
            }
        }
    }
}

/// Ends an observation when disposed or when released, whichever comes first.
public final class Disposable: Sendable {
    private let action: Locked<(@Sendable () -> Void)?>

    /// A disposable that runs `dispose` once, on whichever thread disposes or releases it.
    public init(_ dispose: @escaping @Sendable () -> Void) {
        self.action = Locked(dispose)
    }

    /// Ends the observation now. Safe to call more than once.
    public func dispose() {
        let action = self.action.withLock { action -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        action?()
    }

    /// Keeps this observation alive as long as `bag` lives (or until it is emptied).
    public func disposed(by bag: DisposeBag) {
        bag.insert(self)
    }

    deinit { dispose() }
}

/// Owns a view's observations: emptying it, replacing it or releasing it ends them all. A reused table cell that
/// gets a fresh bag before binding a new post never again shows the old post's updates.
public final class DisposeBag: Sendable {
    private let disposables = Locked<[Disposable]>([])

    public init() {}

    /// Adds an observation to the bag.
    public func insert(_ disposable: Disposable) {
        disposables.withLock { $0.append(disposable) }
    }

    /// Ends every observation in the bag and empties it.
    public func dispose() {
        let all = disposables.withLock { all -> [Disposable] in
            defer { all.removeAll() }
            return all
        }
        all.forEach { $0.dispose() }
    }

    /// How many observations the bag holds.
    public var count: Int { disposables.withLock { $0.count } }

    deinit { dispose() }
}

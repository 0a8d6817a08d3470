import Synchronization

/// Marks one observation as ended; checked by the graph before each call.
@usableFromInline
final class ObservationToken: Sendable {
    private let cancelled = Atomic<Bool>(false)

    @usableFromInline
    init() {}

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    @usableFromInline
    func cancel() { cancelled.store(true, ordering: .releasing) }
}

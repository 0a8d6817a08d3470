import Synchronization

/// Marks one observation as ended; checked by the graph before each call.
final class ObservationToken: Sendable {
    private let cancelled = Atomic<Bool>(false)

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func cancel() { cancelled.store(true, ordering: .releasing) }
}

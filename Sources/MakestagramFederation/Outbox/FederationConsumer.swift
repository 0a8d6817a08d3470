import Foundation
import Logging
import MakestagramCore
import MakestagramStore
import ServiceLifecycle
import Synchronization

/// Federation's consumer of the change log: reads each committed change after commit, in log order, and queues the
/// deliveries it causes (``Federation/deliveries(for:)``) in the same transaction that moves its position, so that
/// after a crash it resumes where it stopped; a delivery queued twice is kept once (activity id and inbox). One
/// instance of a shared database runs it at a time; the ``DeliveryWorker`` of every instance sends what it queued.
/// What it queues it also takes for its own instance's worker (``DeliveryWorker/hand(_:)``), under the same lease a
/// claim would take: at most four rounds of the worker's, so that the rest of a large fan-out is claimed by every
/// instance of a shared database.
final class FederationConsumer<S: Store>: Service {
    static var name: String { S.federationConsumer }

    let federation: Federation<S>
    let bell: ChangeBell
    let worker: DeliveryWorker<S>
    let pollInterval: Duration
    /// Where this consumer's last batch ended: a batch that starts elsewhere follows batches another instance
    /// consumed, whose changes the follower inboxes in memory did not see.
    private let lastEnd = Mutex<String?>(nil)
    var logger: Logger { federation.logger }

    init(federation: Federation<S>, bell: ChangeBell, worker: DeliveryWorker<S>, pollInterval: Duration = .seconds(1)) {
        self.federation = federation
        self.bell = bell
        self.worker = worker
        self.pollInterval = pollInterval
    }

    func run() async throws {
        let store = federation.store
        try await ChangeLogFollower(
            name: Self.name, bell: bell, pollInterval: pollInterval, logger: logger,
            failure: "queueing deliveries failed"
        ).run(store: store, prepare: { try await store.joinChangeLog(consumer: Self.name) }) {
            try await self.catchUp()
        }
    }

    /// Queues the deliveries of every change the log holds for it now.
    func catchUp() async throws {
        while try await step() {}
    }

    func step() async throws -> Bool {
        let store = federation.store
        let batch = try await store.changes(for: Self.name, limit: 200)
        if lastEnd.withLock({ $0 }) != batch.from { federation.followerInboxes.clear() }
        guard batch.read > 0 else {
            if batch.to != batch.from, try await store.queueDeliveries([], consumer: Self.name, batch: batch) {
                lastEnd.withLock { $0 = batch.to }
            }
            return false
        }
        let deliveries = try await federation.deliveries(for: batch.changes)
        let farewells = Federation<S>.farewells(in: batch.changes)
        // Queued and taken at once: this instance's worker sends them without claiming them again.
        guard
            let taken = try await store.queueDeliveries(
                deliveries, farewells: farewells, consumer: Self.name, batch: batch,
                taking: DeliveryTake(lease: worker.lease, limit: worker.concurrency * 4))
        else {
            // Another instance moved the log on meanwhile.
            lastEnd.withLock { $0 = nil }
            return true
        }
        lastEnd.withLock { $0 = batch.to }
        if !taken.isEmpty { worker.hand(taken) }
        return true
    }
}

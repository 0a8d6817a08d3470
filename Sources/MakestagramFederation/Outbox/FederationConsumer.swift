import Foundation
import Logging
import MakestagramCore
import MakestagramStore
import ServiceLifecycle

/// Federation's consumer of the change log: reads each committed change after commit, in log order, and queues the
/// deliveries it causes (``Federation/deliveries(for:)``) in the same transaction that moves its position, so that
/// after a crash it resumes where it stopped; a delivery queued twice is kept once (activity id and inbox). One
/// instance of a shared database runs it at a time; the ``DeliveryWorker`` of every instance sends what it queued.
final class FederationConsumer<S: Store>: Service {
    static var name: String { S.federationConsumer }

    let federation: Federation<S>
    let bell: ChangeBell
    let worker: DeliveryWorker<S>
    let pollInterval: Duration
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
        guard batch.read > 0 else {
            if batch.to != batch.from { _ = try await store.queueDeliveries([], consumer: Self.name, batch: batch) }
            return false
        }
        let deliveries = try await federation.deliveries(for: batch.changes)
        let farewells = Federation<S>.farewells(in: batch.changes)
        if try await store.queueDeliveries(deliveries, farewells: farewells, consumer: Self.name, batch: batch),
            !deliveries.isEmpty
        {
            worker.wake()
        }
        return true
    }
}

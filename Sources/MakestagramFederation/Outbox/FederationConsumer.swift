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
    static var name: String { "federation" }

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
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await federation.store.joinChangeLog(consumer: Self.name)
                let ran = try await federation.store.runAlone(Self.name) { try await self.follow() }
                if !ran { try await pause(pollInterval * 5) }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("queueing deliveries failed; trying again", metadata: ["error": "\(error)"])
                try? await pause(pollInterval)
            }
        }
    }

    private func pause(_ duration: Duration) async throws {
        _ = try await cancelOnGracefulShutdown { try await Task.sleep(for: duration) }
    }

    private func follow() async throws {
        let ticker = Task { [bell, pollInterval] in
            while !Task.isCancelled {
                try? await Task.sleep(for: pollInterval)
                bell.ring()
            }
        }
        defer { ticker.cancel() }
        try await catchUp()
        for await _ in bell.rings.cancelOnGracefulShutdown() {
            try await catchUp()
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
        if try await store.queueDeliveries(deliveries, consumer: Self.name, batch: batch), !deliveries.isEmpty {
            worker.wake()
        }
        return true
    }
}

import Foundation
import Logging
import MakestagramStore
import ServiceLifecycle
import Synchronization

/// Keeps activity (what others did to each user, its groups and unread counts) by reading the change log after
/// commit: a like's own transaction writes the like, its count and its change, nothing more, and the activity it
/// causes follows moments later, in log order, in batches (``ActivityRules`` says what each change does).
///
/// Its position in the log is kept in the database and moved in the same transaction as what it writes, so that
/// after a crash it resumes where it stopped and applies nothing twice. One instance of a shared database runs it
/// at a time (``Store/runAlone(_:_:)``); another takes over if it stops. It wakes on every change this instance
/// commits or reads, and looks again every ``pollInterval`` for changes of other instances.
package final class ActivityConsumer<S: ChangeLogStore & MaintenanceStoring>: Service {
    /// Its name in the log's table of consumers.
    package static var name: String { "activity" }

    let store: S
    let rules: ActivityRules<S>
    let logger: Logger
    /// The most changes applied in one transaction.
    let batchSize: Int
    /// How often it looks for changes it was not woken for, and how soon an instance that does not hold the job asks
    /// again.
    let pollInterval: Duration
    /// Rings when a change is committed or read.
    let bell: ChangeBell

    /// How often, at most, its position is written when it read nothing but the log's end moved on (on
    /// PostgreSQL the position is the oldest transaction still running, which moves as other transactions end):
    /// changes below the written position may be pruned, so it is kept near, without a write per poll.
    let idleAdvance: Duration
    private let lastAdvance = Mutex(ContinuousClock.now)

    package init(
        store: S, bell: ChangeBell, logger: Logger, batchSize: Int = 500, pollInterval: Duration = .seconds(1),
        idleAdvance: Duration = .seconds(10)
    ) {
        self.store = store
        self.rules = ActivityRules(store: store)
        self.bell = bell
        self.logger = logger
        self.batchSize = batchSize
        self.pollInterval = pollInterval
        self.idleAdvance = idleAdvance
    }

    package func run() async throws {
        try await ChangeLogFollower(
            name: Self.name, bell: bell, pollInterval: pollInterval, logger: logger,
            failure: "deriving activity failed"
        ).run(store: store) { try await self.catchUp() }
    }

    /// Applies every change the log holds for it now.
    package func catchUp() async throws {
        while try await step() {}
    }

    /// Applies one batch; false when there was nothing to apply.
    package func step() async throws -> Bool {
        let batch = try await store.changes(for: Self.name, limit: batchSize)
        guard batch.read > 0 else {
            let now = ContinuousClock.now
            if batch.to != batch.from, lastAdvance.withLock({ now - $0 >= idleAdvance }) {
                lastAdvance.withLock { $0 = now }
                _ = try await store.applyActivity([], consumer: Self.name, batch: batch)
            }
            return false
        }
        let writes = try await rules.writes(for: batch.changes)
        if try await !store.applyActivity(writes, consumer: Self.name, batch: batch) {
            logger.debug("another instance applied the batch first")
        }
        return true
    }
}

/// Rings for every committed change that may cause activity (a store's sink): the activity consumer wakes on it.
/// Rings coalesce: one waiting ring stands for any number of changes.
package final class ChangeBell: StoreEventSink {
    private let doorbell = Doorbell()

    package init() {}

    package func publish(_ event: StoreEvent) {
        switch event {
        // The consumer's own output, and what causes no activity, rings nothing.
        case .activityChanged, .sessionEnded, .imageChanged, .profileChanged, .changesMissed: return
        default: ring()
        }
    }

    package func ring() {
        doorbell.ring()
    }

    /// Runs `work` after each ring until a graceful shutdown (``Doorbell/answer(_:)``).
    func answer(_ work: () async throws -> Void) async rethrows {
        try await doorbell.answer(work)
    }
}

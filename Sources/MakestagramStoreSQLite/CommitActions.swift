import GRDB

/// Work to run once the current write transaction commits (publishing events, ending cached sessions), dropped if
/// it rolls back.
///
/// One observer for the life of the writer connection. GRDB's `afterNextTransaction` adds and removes an observer
/// per transaction, and each addition or removal empties the statement cache of every statement that deletes rows:
/// with it, each unlike prepared its DELETE and the trigger behind it anew (an eighth of a toggle's time).
final class CommitActions: TransactionObserver, @unchecked Sendable {
    // Only touched on the writer's queue: by ``run(_:)`` inside write transactions and by GRDB's callbacks.
    private var pending: [@Sendable () -> Void] = []

    /// Runs `action` after the current transaction commits; call inside a write transaction.
    func run(_ action: @escaping @Sendable () -> Void) {
        pending.append(action)
    }

    /// How many actions wait; with ``drop(after:)``, undoes the actions of a rolled-back savepoint.
    var count: Int { pending.count }

    /// Forgets the actions added after the first `count`.
    func drop(after count: Int) {
        pending.removeSubrange(count...)
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }

    func databaseDidChange(with event: DatabaseEvent) {}

    func databaseDidCommit(_ db: Database) {
        let actions = pending
        pending = []
        for action in actions { action() }
    }

    func databaseDidRollback(_ db: Database) {
        pending = []
    }
}

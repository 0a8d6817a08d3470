import GRDB
import Synchronization

/// Runs write transactions on the single writer connection, committing the writes that arrive together in one
/// transaction.
///
/// Each write runs in its own savepoint, so it succeeds or fails alone, exactly as in a transaction of its own;
/// only the commit is shared. A lone write commits at once; while one group commits, the writes that arrive wait
/// and form the next group. A commit costs more than a like (the write-ahead log appends every page the transaction
/// touched), so under load a group of toggles costs little more than one (Benchmarks/HISTORY.md). Nobody is
/// answered before the group commits, and the commit's events are published before anybody is answered.
final class GroupCommit: Sendable {
    private struct Job: Sendable {
        /// Runs the write; throws its error.
        let perform: @Sendable (Database) throws -> Void
        /// Answers the caller once the group has committed (nil) or failed.
        let finish: @Sendable (Error?) -> Void
    }

    private struct State {
        var waiting: [Job] = []
        var committing = false
    }

    private let state = Mutex(State())
    private let writer: any DatabaseWriter
    private let commitActions: CommitActions

    init(writer: any DatabaseWriter, commitActions: CommitActions) {
        self.writer = writer
        self.commitActions = commitActions
    }

    /// Runs `body` in a write transaction (shared with other writes that arrive meanwhile) and answers its value
    /// once that transaction has committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let result = ResultBox<T>()
            let job = Job(
                perform: { db in result.value = try body(db) },
                finish: { error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume(returning: result.value!)
                    }
                })
            let start = state.withLock { state in
                state.waiting.append(job)
                defer { state.committing = true }
                return !state.committing
            }
            if start { writer.asyncWriteWithoutTransaction { db in self.commitWaiting(db) } }
        }
    }

    /// Commits groups until no write waits.
    private func commitWaiting(_ db: Database) {
        while true {
            let jobs = state.withLock { state in
                let jobs = state.waiting
                state.waiting = []
                if jobs.isEmpty { state.committing = false }
                return jobs
            }
            if jobs.isEmpty { return }
            commit(jobs, db)
        }
    }

    /// Commits `jobs` as one transaction. Most groups have no write that fails, so a group first runs without a
    /// savepoint per write (they cost a few per cent of a like toggle: SQLite tracks the pages each one touches).
    /// If a write fails, the group is rolled back and run again with a savepoint per write, so that the others still
    /// commit. A write may thus run twice; like any write on PostgreSQL, which runs again after a deadlock, it only
    /// writes to the database and asks for commit actions (dropped when its transaction rolls back).
    private func commit(_ jobs: [Job], _ db: Database) {
        do {
            try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
            for job in jobs { try job.perform(db) }
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
        } catch {
            if db.isInsideTransaction { try? db.cachedStatement(sql: "ROLLBACK TRANSACTION").execute() }
            // A lone write failed as it would in a savepoint.
            if jobs.count == 1 {
                jobs[0].finish(error)
            } else {
                commitAlone(jobs, db)
            }
            return
        }
        for job in jobs { job.finish(nil) }
    }

    /// Commits `jobs` as one transaction in which each write runs in a savepoint of its own and fails alone.
    private func commitAlone(_ jobs: [Job], _ db: Database) {
        var errors: [Error?] = []
        errors.reserveCapacity(jobs.count)
        do {
            try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
            for job in jobs {
                let actions = commitActions.count
                try db.cachedStatement(sql: "SAVEPOINT write").execute()
                do {
                    try job.perform(db)
                    try db.cachedStatement(sql: "RELEASE SAVEPOINT write").execute()
                    errors.append(nil)
                } catch {
                    // Undo this write alone; if SQLite ended the whole transaction, the rollback below fails all.
                    try db.cachedStatement(sql: "ROLLBACK TRANSACTION TO SAVEPOINT write").execute()
                    try db.cachedStatement(sql: "RELEASE SAVEPOINT write").execute()
                    commitActions.drop(after: actions)
                    errors.append(error)
                }
            }
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
        } catch {
            if db.isInsideTransaction { try? db.cachedStatement(sql: "ROLLBACK TRANSACTION").execute() }
            for job in jobs { job.finish(error) }
            return
        }
        for (job, error) in zip(jobs, errors) { job.finish(error) }
    }
}

/// A write's value, carried from the writer's queue to its caller.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}

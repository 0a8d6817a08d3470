import GRDB
import Synchronization

/// Counts the reads that hold, or are about to take, one of the pool's reader connections, so that a read runs on
/// the calling thread only when a connection is certainly free.
final class ReaderSlots: Sendable {
    /// The pool's reader connections.
    let capacity: Int
    private let taken = Atomic<Int>(0)

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Takes a slot if one is free (then a connection is free: every holder of a connection has a slot).
    func tryTake() -> Bool {
        var current = taken.load(ordering: .relaxed)
        while current < capacity {
            let (exchanged, original) = taken.compareExchange(
                expected: current, desired: current + 1, ordering: .acquiring)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Takes a slot whether or not one is free (for a read that will wait for its connection elsewhere).
    func take() {
        taken.wrappingAdd(1, ordering: .relaxed)
    }

    func release() {
        taken.wrappingSubtract(1, ordering: .releasing)
    }
}

extension AppDatabase {
    /// Runs `body` in a read transaction on a reader connection, never waiting for a connection on the calling
    /// thread (an event loop: waiting there would stall every request on it).
    ///
    /// When a connection is certainly free the read runs right here: in WAL mode reads never wait for writers, and
    /// from mapped pages they take microseconds, less than the two thread hops an asynchronous read costs (measured in
    /// Benchmarks/HISTORY.md). When every connection may be in use, it waits for one on GRDB's own queue instead.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if readers.tryTake() {
            defer { readers.release() }
            return try readHere(body)
        }
        readers.take()
        defer { readers.release() }
        return try await writer.read(body)
    }

    /// One read transaction on this thread. GRDB's `read` prepares its `BEGIN` and `COMMIT` anew for every read (SQL
    /// parsing and its authorizer were a third of a short read's time in the profile); these statements are prepared
    /// once per connection. Call only with a reader slot taken.
    private func readHere<T>(_ body: (Database) throws -> T) throws -> T {
        try writer.unsafeRead { db in
            try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
            let value: T
            do {
                value = try body(db)
            } catch {
                try? db.cachedStatement(sql: "ROLLBACK TRANSACTION").execute()
                throw error
            }
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return value
        }
    }
}

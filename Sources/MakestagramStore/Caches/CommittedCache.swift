import Synchronization

/// Values read from the database and kept in memory, kept true by the changes that reach them: each committed change
/// drops or updates what it touches (see ``StoreCaches``) — with one SQLite writer when the write commits, before it
/// is answered; with several PostgreSQL instances also when the change stream brings another instance's commit.
///
/// A read that began before such a change and finishes after it would put the old value back. Every change
/// therefore bumps a generation number and remembers it for the key it changed; a reader takes the generation
/// before it reads, and its insertion is turned away if its key changed since. The remembered changes are bounded:
/// when there are too many they are forgotten, and insertions from reads that began before are turned away.
package final class CommittedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var values: [Key: Value] = [:]
        /// Keys changed lately, with the generation of their last change.
        var changed: [Key: UInt64] = [:]
        var generation: UInt64 = 0
        /// Reads that began before this generation may not insert: the changes before it are forgotten.
        var floor: UInt64 = 0

        func accepts(_ key: Key, readAt generation: UInt64) -> Bool {
            generation >= floor && (changed[key] ?? 0) <= generation
        }

        mutating func change(_ key: Key, changes: Int) {
            if changed.count >= changes {
                changed.removeAll(keepingCapacity: true)
                floor = generation
            }
            changed[key] = generation
        }
    }

    private let state = Mutex(State())
    /// At most this many values are kept; when full, the cache starts over (reads then refill it).
    package let capacity: Int
    /// At most this many changed keys are remembered.
    package let changes: Int

    package init(capacity: Int, changes: Int = 10_000) {
        self.capacity = capacity
        self.changes = changes
    }

    /// The generation to pass to `insert` after reading the database.
    package var generation: UInt64 {
        state.withLock { $0.generation }
    }

    /// The kept value for `key`, and the generation to pass to ``insert(_:for:generation:)`` on a miss.
    package func lookup(_ key: Key) -> (value: Value?, generation: UInt64) {
        state.withLock { ($0.values[key], $0.generation) }
    }

    /// The kept values for all of `keys`, in their order, or nil if any is missing.
    package func values(_ keys: some Sequence<Key>) -> [Value]? {
        state.withLock { state in
            var values: [Value] = []
            values.reserveCapacity(keys.underestimatedCount)
            for key in keys {
                guard let value = state.values[key] else { return nil }
                values.append(value)
            }
            return values
        }
    }

    /// Keeps a value read from the database, unless its key changed after `generation` was taken.
    package func insert(_ value: Value, for key: Key, generation: UInt64) {
        insert(CollectionOfOne((key, value)), generation: generation)
    }

    /// Keeps values read from the database, except those whose key changed after `generation` was taken.
    package func insert(_ pairs: some Sequence<(Key, Value)>, generation: UInt64) {
        state.withLock { state in
            for (key, value) in pairs where state.accepts(key, readAt: generation) {
                if state.values.count >= capacity, state.values[key] == nil {
                    state.values.removeAll(keepingCapacity: true)
                }
                state.values[key] = value
            }
        }
    }

    /// Forgets the values of keys whose rows changed; call once the change has committed.
    package func remove(_ keys: some Sequence<Key>) {
        state.withLock { state in
            state.generation &+= 1
            for key in keys {
                state.values[key] = nil
                state.change(key, changes: changes)
            }
        }
    }

    /// Applies a committed change to the kept values of `keys` (those not kept stay so).
    package func update(_ keys: some Sequence<Key>, _ transform: (inout Value) -> Void) {
        state.withLock { state in
            state.generation &+= 1
            for key in keys {
                state.change(key, changes: changes)
                if var value = state.values.removeValue(forKey: key) {
                    transform(&value)
                    state.values[key] = value
                }
            }
        }
    }

    /// Forgets the kept values that `predicate` picks (a change to what they hold, found by value rather than key);
    /// reads that began before may not insert, since what they read may be such a value under a key not kept now.
    package func remove(where predicate: (Value) -> Bool) {
        state.withLock { state in
            state.generation &+= 1
            state.values = state.values.filter { !predicate($0.value) }
            state.changed.removeAll(keepingCapacity: true)
            state.floor = state.generation
        }
    }

    /// Forgets everything (the changes since some point are unknown); reads that began before may not insert.
    package func removeAll() {
        state.withLock { state in
            state.generation &+= 1
            state.values.removeAll(keepingCapacity: true)
            state.changed.removeAll(keepingCapacity: true)
            state.floor = state.generation
        }
    }
}

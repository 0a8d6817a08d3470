import Synchronization

/// Work done once for everyone who asks for the same key while it runs: the first to ask starts it, the others wait
/// for its result or its error. Once it has ended, the next to ask starts it again.
final class SharedWork<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let running = Mutex<[Key: Task<Value, any Error>]>([:])

    init() {}

    func run(_ key: Key, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task = running.withLock { running in
            if let current = running[key] { return current }
            let started = Task { try await work() }
            running[key] = started
            return started
        }
        defer {
            // Only this run's entry: a new run of the same key may have started since it ended.
            running.withLock { running in
                if running[key] == task { running[key] = nil }
            }
        }
        return try await task.value
    }
}

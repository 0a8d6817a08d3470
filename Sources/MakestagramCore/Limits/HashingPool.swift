import NIOPosix
import ServiceLifecycle
import Synchronization

/// The threads that hash passwords (bcrypt), apart from the pool that decodes photos: a flood of log-ins cannot take
/// every core from the other requests, and a queue of uploads cannot make log-ins wait. At most `queueLimit` hashes
/// wait for a thread; beyond that ``run(_:)`` answers nil at once. A service, so that its threads end with the server.
package final class HashingPool: Service {
    private let pool: NIOThreadPool
    private let waiting = Atomic<Int>(0)
    package let queueLimit: Int

    package init(threads: Int, queueLimit: Int = 64) {
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
        pool.start()
        self.queueLimit = queueLimit
    }

    /// Runs `body` on one of the pool's threads; nil when too many already wait.
    package func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws -> T? {
        guard waiting.wrappingAdd(1, ordering: .relaxed).newValue <= queueLimit + threadCount else {
            waiting.wrappingSubtract(1, ordering: .relaxed)
            return nil
        }
        defer { waiting.wrappingSubtract(1, ordering: .relaxed) }
        return try await pool.runIfActive(body)
    }

    private var threadCount: Int { pool.numberOfThreads }

    /// Waits for the server to shut down, then stops the threads.
    package func run() async throws {
        try? await gracefulShutdown()
        try await pool.shutdownGracefully()
    }
}

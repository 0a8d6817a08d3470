import ServiceLifecycle

/// Wakes a worker that waits for work: rings coalesce (one waiting ring stands for any number), and
/// ``answer(_:)`` runs the worker after each ring until the server shuts down gracefully.
///
/// Not `rings.cancelOnGracefulShutdown()`: that sequence merges the rings with a shutdown signal through tasks of its
/// own and hands each ring from one task to another, which on a busy server showed as a tenth of the cooperative
/// pool's time during like toggles. Here a ring wakes the worker directly, and shutting down rings once more.
package final class Doorbell: Sendable {
    private let rings: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    package init() {
        (rings, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    package func ring() {
        continuation.yield()
    }

    /// Runs `work` after each ring (a ring waiting already runs it at once) until a graceful shutdown or
    /// cancellation; work under way when the shutdown starts finishes first. One caller at a time.
    package func answer(_ work: () async throws -> Void) async rethrows {
        try await withGracefulShutdownHandler {
            for await _ in rings {
                if Task.isShuttingDownGracefully { return }
                try await work()
            }
        } onGracefulShutdown: { [continuation] in
            continuation.yield()
        }
    }
}

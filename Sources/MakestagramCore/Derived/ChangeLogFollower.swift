import Logging
import MakestagramStore
import ServiceLifecycle

/// How a durable consumer of the change log runs, written once for each (activity, federation's deliveries): on one
/// instance of a shared database at a time (``MaintenanceStoring/runAlone(_:_:)`` under its name; another instance
/// takes over if it stops), catching up whenever its bell rings (a change committed or read) and every poll interval
/// (changes of other instances), until shutdown. A failure is logged and tried again.
package struct ChangeLogFollower: Sendable {
    /// The consumer's name: its job, and its row among the log's consumers.
    package let name: String
    let bell: ChangeBell
    let pollInterval: Duration
    let logger: Logger
    /// What the log says when a round fails (`deriving activity failed`).
    let failure: String

    package init(name: String, bell: ChangeBell, pollInterval: Duration, logger: Logger, failure: String) {
        self.name = name
        self.bell = bell
        self.pollInterval = pollInterval
        self.logger = logger
        self.failure = failure
    }

    /// Runs `catchUp` (apply everything the log holds now) whenever there may be more, until shutdown; `prepare` runs
    /// before each claim of the job.
    package func run(
        store: some MaintenanceStoring, prepare: @escaping @Sendable () async throws -> Void = {},
        catchUp: @escaping @Sendable () async throws -> Void
    ) async throws {
        // Shutting down ends `follow`'s answering of rings, and cuts short the waits here.
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await prepare()
                let ran = try await store.runAlone(name) { try await follow(catchUp) }
                if !ran { try await pause(pollInterval * 5) }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("\(failure); trying again", metadata: ["error": "\(error)"])
                try? await pause(pollInterval)
            }
        }
    }

    /// Waits, cut short by shutdown.
    private func pause(_ duration: Duration) async throws {
        _ = try await cancelOnGracefulShutdown { try await Task.sleep(for: duration) }
    }

    /// Applies what the log holds, then waits for more (a ring, or the poll interval), until shutdown.
    private func follow(_ catchUp: @Sendable () async throws -> Void) async throws {
        let ticker = Task { [bell, pollInterval] in
            while !Task.isCancelled {
                try? await Task.sleep(for: pollInterval)
                bell.ring()
            }
        }
        defer { ticker.cancel() }
        try await catchUp()
        try await bell.answer(catchUp)
    }
}

import Foundation
import Logging
import MakestagramStore
import ServiceLifecycle

/// Something that finishes deleting accounts when told one began.
package protocol AccountDeletionTrigger: Sendable {
    /// An account's deletion began: finish it soon.
    func wake()
}

/// Finishes the deletion of accounts in the background, in batches of about ``batchSize`` rows, each its own
/// transaction (``Store/continueAccountDeletion(userID:limit:)``), so that a user with ten thousand posts never holds
/// the database for long. The account was hidden when its deletion began; what is left is bookkeeping. It runs at
/// start-up (a deletion a crash interrupted resumes), when woken, and every few minutes (deletions another instance
/// began and did not finish). Several instances may work on one account: each batch deletes what is still there.
package final class AccountDeletion<S: Store>: Service, AccountDeletionTrigger {
    package let store: S
    package let media: any MediaStorage
    package let logger: Logger
    /// Rows per batch.
    package let batchSize: Int
    /// How often to look for deletions nobody is finishing.
    package let interval: Duration
    private let wakeups: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    package init(
        store: S, media: any MediaStorage, logger: Logger, batchSize: Int = 200, interval: Duration = .seconds(300)
    ) {
        self.store = store
        self.media = media
        self.logger = logger
        self.batchSize = batchSize
        self.interval = interval
        (wakeups, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    package func wake() {
        continuation.yield()
    }

    package func run() async throws {
        let ticker = Task { [continuation, interval] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                continuation.yield()
            }
        }
        defer { ticker.cancel() }
        await finishAll()
        for await _ in wakeups.cancelOnGracefulShutdown() { await finishAll() }
    }

    /// Finishes every account being deleted; a failure (the database out of reach) leaves the rest for later.
    package func finishAll() async {
        do {
            for userID in try await store.accountsBeingDeleted() where !Task.isCancelledOrShuttingDown {
                var batches = 0
                var files = 0
                while !Task.isCancelledOrShuttingDown {
                    let step = try await store.continueAccountDeletion(userID: userID, limit: batchSize)
                    media.remove(step.files)
                    batches += 1
                    files += step.files.count
                    if step.finished {
                        logger.notice(
                            "account deleted",
                            metadata: ["user": "\(userID)", "batches": "\(batches)", "files": "\(files)"])
                        break
                    }
                    // Other writers take their turn between batches.
                    await Task.yield()
                }
            }
        } catch is CancellationError {
            return
        } catch {
            logger.warning("deleting accounts paused", metadata: ["error": "\(error)"])
        }
    }
}

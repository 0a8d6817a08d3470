import Foundation
import Logging
import MakestagramStore
import ServiceLifecycle
import Synchronization

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
/// An account whose row waits for its farewell to other servers (``AccountDeletionStep/waiting``) is asked about
/// again every ``farewellInterval``.
package final class AccountDeletion<S: Store>: Service, AccountDeletionTrigger {
    package let store: S
    package let media: any MediaStorage
    package let logger: Logger
    /// Rows per batch.
    package let batchSize: Int
    /// How often to look for deletions nobody is finishing.
    package let interval: Duration
    /// How often to look again at an account waiting for its farewell to other servers.
    package let farewellInterval: Duration
    private let recheck = Mutex<Task<Void, Never>?>(nil)
    private let wakeups = Doorbell()

    package init(
        store: S, media: any MediaStorage, logger: Logger, batchSize: Int = 200, interval: Duration = .seconds(300),
        farewellInterval: Duration = .seconds(2)
    ) {
        self.store = store
        self.media = media
        self.logger = logger
        self.batchSize = batchSize
        self.interval = interval
        self.farewellInterval = farewellInterval
    }

    package func wake() {
        wakeups.ring()
    }

    package func run() async throws {
        let ticker = Task { [wakeups, interval] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                wakeups.ring()
            }
        }
        defer {
            ticker.cancel()
            recheck.withLock { $0?.cancel() }
        }
        await finishAllAndRecheck()
        await wakeups.answer { await finishAllAndRecheck() }
    }

    /// ``finishAll()``, then, if an account waits for its farewell, a wake-up after ``farewellInterval``.
    private func finishAllAndRecheck() async {
        guard await finishAll() else { return }
        recheck.withLock { task in
            guard task == nil else { return }
            task = Task {
                try? await Task.sleep(for: self.farewellInterval)
                self.recheck.withLock { $0 = nil }
                self.wakeups.ring()
            }
        }
    }

    /// Finishes every account being deleted; a failure (the database out of reach) leaves the rest for later.
    /// Answers whether an account waits for its farewell to other servers.
    @discardableResult
    package func finishAll() async -> Bool {
        var waiting = false
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
                    if step.waiting {
                        waiting = true
                        break
                    }
                    // Other writers take their turn between batches.
                    await Task.yield()
                }
            }
        } catch is CancellationError {
            return false
        } catch {
            logger.warning("deleting accounts paused", metadata: ["error": "\(error)"])
        }
        return waiting
    }
}

import Foundation
import Logging
import MakestagramStore
import NIOPosix
import Photos
import ServiceLifecycle

/// Gives the posts stored before responsive variants their variants, made from their full JPEG, in the background
/// after start-up: one post at a time through the photo worker's permits (uploads come first), so a large instance
/// catches up without slowing anyone. Until a post has them it shows its full JPEG. One instance at a time does it
/// (``Store/runAlone(_:_:)``); the others look again every ``retryInterval`` and take over if it stopped before the
/// end. Should two ever make the same post's variants, the store keeps the first and the other removes its files.
package struct VariantBackfill<S: Store>: Service {
    package let store: S
    package let worker: PhotoWorker
    package let logger: Logger
    /// Posts read per query.
    package var batchSize = 50
    /// How long an instance waits before looking again while another one makes the variants.
    package var retryInterval: Duration = .seconds(60)

    package init(store: S, worker: PhotoWorker, logger: Logger) {
        self.store = store
        self.worker = worker
        self.logger = logger
    }

    package func run() async throws {
        do {
            while !Task.isCancelledOrShuttingDown {
                if try await store.runAlone("variant backfill", { try await backfillAll() }) { break }
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: retryInterval) }
                if try await store.postsWithoutVariants(after: 0, limit: 1).isEmpty { break }
            }
        } catch is CancellationError {
            return
        } catch {
            logger.warning("making responsive variants of older posts stopped", metadata: ["error": "\(error)"])
        }
        // A service that returns ends the whole server: this one waits for the server to stop.
        try? await gracefulShutdown()
    }

    /// Makes the variants of every post without them, in ID order.
    private func backfillAll() async throws {
        var after: Int64 = 0
        var made = 0
        defer {
            if made > 0 { logger.notice("made responsive variants of older posts", metadata: ["count": "\(made)"]) }
        }
        while !Task.isCancelledOrShuttingDown {
            let posts = try await store.postsWithoutVariants(after: after, limit: batchSize)
            guard let last = posts.last else { return }
            for post in posts where !Task.isCancelledOrShuttingDown {
                if try await backfill(postID: post.id, fullFile: post.fullFile) { made += 1 }
            }
            after = last.id
        }
    }

    /// Makes and stores one post's variants; false when it could not (its file is gone or unreadable: it keeps
    /// showing its full JPEG) or another instance did first.
    private func backfill(postID: Int64, fullFile: String) async throws -> Bool {
        let files: [StoredVariant]
        do {
            files = try await worker.storeVariants(ofFile: fullFile)
        } catch {
            logger.warning(
                "could not make responsive variants of a post",
                metadata: ["post": "\(postID)", "file": "\(fullFile)", "error": "\(error)"])
            return false
        }
        guard !files.isEmpty else { return false }
        do {
            if try await store.setVariants(postID: postID, variants: files) { return true }
        } catch {
            worker.media.remove(files.map(\.fileName))
            throw error
        }
        worker.media.remove(files.map(\.fileName))
        return false
    }
}

extension Task where Success == Never, Failure == Never {
    /// Whether the current task is cancelled or the service group is shutting down gracefully.
    package static var isCancelledOrShuttingDown: Bool { isCancelled || isShuttingDownGracefully }
}

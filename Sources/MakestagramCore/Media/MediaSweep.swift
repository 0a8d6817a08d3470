import Logging
import MakestagramStore
import NIOPosix
import ServiceLifecycle

/// Removes the media files no row refers to (left by a crash between writing files and committing their row, or
/// between deleting a row and its files), once, in the background after start-up; with several instances, only the
/// first to start sweeps while it runs (``Store/runAlone(_:_:)``).
///
/// It does not hold up start-up: on a large instance reading every referenced name takes seconds (two million names
/// at a million posts), and a rolling restart should not wait for housekeeping. The read runs on the
/// ``MaintenanceExecutor``, so it holds no event loop either. Files younger than ``minimumAge``
/// stay, so an upload in flight (on this instance after start-up, or on another sharing the folder) whose row is not
/// committed when the names are read is never removed.
package struct MediaSweep<S: Store>: Service {
    package let store: S
    package let media: any MediaStorage
    package let logger: Logger
    package var minimumAge: Duration = .seconds(600)

    package init(store: S, media: any MediaStorage, logger: Logger) {
        self.store = store
        self.media = media
        self.logger = logger
    }

    package func run() async throws {
        do {
            // With several instances on one database and folder, the first to start sweeps for all.
            let ran = try await store.runAlone("media sweep") { try await sweep() }
            if !ran { logger.info("another instance is sweeping stray media files") }
        } catch is CancellationError {
            return
        } catch {
            logger.warning("the sweep of stray media files failed", metadata: ["error": "\(error)"])
        }
        // A service that returns ends the whole server: this one waits for the server to stop.
        try? await gracefulShutdown()
    }

    private func sweep() async throws {
        let started = ContinuousClock.now
        // Shutting down cancels the read between two slices.
        let referenced = try await cancelWhenGracefulShutdown {
            try await withTaskExecutorPreference(MaintenanceExecutor.shared) {
                try await store.referencedMediaFiles()
            }
        }
        let swept = try await NIOThreadPool.singleton.runIfActive { [media, minimumAge] in
            try media.sweep(keeping: referenced, olderThan: minimumAge)
        }
        let metadata: Logger.Metadata = [
            "count": "\(swept)", "referenced": "\(referenced.count)",
            "seconds": "\((ContinuousClock.now - started).seconds)",
        ]
        if swept > 0 {
            logger.notice("removed media files no post refers to", metadata: metadata)
        } else {
            logger.info("no stray media files", metadata: metadata)
        }
    }
}

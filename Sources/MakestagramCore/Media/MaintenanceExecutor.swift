import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Where long housekeeping runs: one thread of its own at the lowest scheduling priority, never an event loop.
///
/// The server's tasks run on the event loops (NIO's threads are Swift's global executor), and a SQLite read runs on
/// the thread that asks for it. A read that takes seconds — every media file name at a million posts — would hold
/// one loop and every connection on it. Work that prefers this executor (`withTaskExecutorPreference`) runs here
/// instead, and at nice 19 it takes only the CPU that requests leave idle.
package final class MaintenanceExecutor: TaskExecutor {
    package static let shared = MaintenanceExecutor()

    private let thread = NIOThreadPool(numberOfThreads: 1)

    private init() {
        thread.start()
        thread.submit { _ in
            #if canImport(Glibc)
                // Linux keeps the nice value per thread: this lowers this thread alone.
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
            #endif
        }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        thread.submit { _ in job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

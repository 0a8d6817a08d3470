import Dispatch

/// Where long housekeeping runs: a serial queue of its own, never an event loop.
///
/// The server's tasks run on the event loops (NIO's threads are Swift's global executor), and a SQLite read runs on
/// the thread that asks for it. A read that takes seconds — every media name at a million posts — would hold one
/// loop and every connection on it. Work that prefers this executor (`withTaskExecutorPreference`) runs its reads
/// here instead.
final class MaintenanceExecutor: TaskExecutor {
    static let shared = MaintenanceExecutor()

    private let queue = DispatchQueue(label: "makestagram.maintenance", qos: .utility)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

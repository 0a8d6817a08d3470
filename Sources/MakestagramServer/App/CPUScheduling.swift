import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How the kernel schedules the server's threads: `batch` or `normal` (``ServerConfiguration/threadScheduling``
/// chooses when it is not set).
///
/// A request passes between threads: the event loop, the tasks that handle it, the database's writer. Under Linux's
/// normal policy a thread woken for that work preempts the one running. On a busy core, during like toggles on
/// SQLite, the writer was interrupted in the middle of a group commit about 1.6 times per toggle, each time for one
/// event or one answer. Under `SCHED_BATCH` a woken thread waits until the running one blocks or uses up its slice,
/// then takes everything queued for it: the writer's interruptions fell to 0.01 per toggle, the server's CPU per toggle
/// from about 182 to 151 µs, and toggles went 6 to 12 % faster in alternating runs; timeline pages and the bare
/// endpoint, which have no such hand-offs, changed by about 1 %. On PostgreSQL, where the server mostly waits for the
/// database's answers, it measured no better (Benchmarks/HISTORY.md, "the server's threads under SCHED_BATCH").
/// Priorities (nice values) are unchanged, and any user may choose the policy.
public enum CPUScheduling: String, Sendable, CaseIterable {
    case batch, normal

    /// Applies the policy to every thread of this process; threads started later inherit it from the thread that
    /// starts them. Answers false where the system has no such policy or refused it (the server then runs as before).
    @discardableResult
    public func apply() -> Bool {
        #if os(Linux)
            var parameters = sched_param()
            parameters.sched_priority = 0
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            var applied = !threads.isEmpty
            for thread in threads.compactMap({ pid_t($0) })
            where sched_setscheduler(thread, linuxPolicy, &parameters) != 0 {
                applied = false
            }
            return applied
        #else
            return false
        #endif
    }

    /// The policy the calling thread runs under, as this type names it; nil for any other, or off Linux.
    public static var current: CPUScheduling? {
        #if os(Linux)
            let policy = sched_getscheduler(0)
            return allCases.first { $0.linuxPolicy == policy }
        #else
            return nil
        #endif
    }

    /// SCHED_BATCH and SCHED_OTHER, as Linux numbers them (Glibc does not export SCHED_BATCH to Swift).
    private var linuxPolicy: Int32 {
        switch self {
        case .batch: 3
        case .normal: 0
        }
    }
}

import Foundation
import NIOCore

/// How many event loops the server runs: one per core it may use.
///
/// NIO sizes its shared event loop group by the machine's cores (or a cgroup's CPU limit), not by the cores the
/// process is allowed to run on. A server started with `taskset -c 0` (or a CPU affinity set by its service manager)
/// would run two loops on its one core, taking turns: a like fanned out to 10,000 sockets took a fifth longer that
/// way (Benchmarks/HISTORY.md).
public enum EventLoopThreads {
    /// Sizes NIO's shared event loop group to the cores this process may run on, when they are fewer than NIO would
    /// use; `NIO_SINGLETON_GROUP_LOOP_COUNT`, if set, still decides. Call before anything uses NIO's shared group.
    public static func matchAllowedCores() {
        guard ProcessInfo.processInfo.environment["NIO_SINGLETON_GROUP_LOOP_COUNT"] == nil,
            let allowed = allowedCores(), allowed < System.coreCount
        else { return }
        NIOSingletons.groupLoopCountSuggestion = allowed
    }

    /// The number of cores in this process's CPU affinity mask, where the system tells it (Linux:
    /// `Cpus_allowed_list` in /proc/self/status, such as `0-1,3`).
    static func allowedCores() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") })
        else { return nil }
        return coreCount(list: line.dropFirst("Cpus_allowed_list:".count))
    }

    /// The number of cores in a Linux CPU list (`0-3,6`); nil if it cannot be read.
    static func coreCount(list: Substring) -> Int? {
        var count = 0
        for range in list.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",") {
            let bounds = range.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
            switch bounds.count {
            case 1:
                guard bounds[0] != nil else { return nil }
                count += 1
            case 2:
                guard let low = bounds[0], let high = bounds[1], low <= high else { return nil }
                count += high - low + 1
            default:
                return nil
            }
        }
        return count > 0 ? count : nil
    }
}

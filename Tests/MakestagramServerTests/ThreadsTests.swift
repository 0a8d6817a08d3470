import Foundation
import Synchronization
import Testing

@testable import MakestagramServer

/// The cores a process may use, as Linux lists them.
@Suite struct EventLoopThreadsTests {
    @Test(arguments: [("0", 1), ("0-1", 2), ("0,2-3", 3), ("\t0-3,6\n", 5), ("5", 1)])
    func coreListsAreCounted(list: String, count: Int) {
        #expect(EventLoopThreads.coreCount(list: list[...]) == count)
    }

    @Test(arguments: ["", "a", "3-1", "0-", "1-2-3"])
    func unreadableListsCountNothing(list: String) {
        #expect(EventLoopThreads.coreCount(list: list[...]) == nil)
    }

    @Test func thisProcessMayUseAtLeastOneCore() throws {
        #if os(Linux)
            #expect(try #require(EventLoopThreads.allowedCores()) >= 1)
        #endif
    }
}

/// The scheduling policy `serve` puts its threads under.
@Suite(.serialized) struct CPUSchedulingTests {
    @Test func everyThreadTakesThePolicyAndThreadsStartedLaterInheritIt() async throws {
        #if os(Linux)
            defer { CPUScheduling.normal.apply() }
            // The threads running before (other tests may start and end threads meanwhile: only these are asked).
            let before = Self.threads()
            #expect(CPUScheduling.batch.apply())
            #expect(CPUScheduling.current == .batch)
            #expect(Self.policies(of: before).allSatisfy { $0 == 3 })
            let later = await Task.detached { CPUScheduling.current }.value
            #expect(later == .batch)
            let thread = Thread { Self.started.withLock { $0 = CPUScheduling.current } }
            thread.start()
            while Self.started.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(1)) }
            #expect(Self.started.withLock { $0 } == .batch)
            #expect(CPUScheduling.normal.apply())
            #expect(CPUScheduling.current == .normal && Self.policies(of: before).allSatisfy { $0 == 0 })
        #endif
    }

    static let started = Mutex<CPUScheduling?>(nil)

    /// This process's threads.
    static func threads() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    }

    /// The policy number of each of `threads` still running, as /proc says.
    static func policies(of threads: [String]) -> [Int] {
        threads.compactMap { thread in
            guard let text = try? String(contentsOfFile: "/proc/self/task/\(thread)/sched", encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("policy") })
            else { return nil }
            return Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "")
        }
    }
}

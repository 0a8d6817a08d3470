import Synchronization
import Testing

@testable import MakestagramFederation

/// Work asked for under one key while it runs is done once; after it ends, it is done again when asked.
@Suite struct SharedWorkTests {
    struct Failure: Error, Equatable {}

    /// Jobs that count their runs by key and wait until opened.
    final class Jobs: Sendable {
        let runs = Mutex<[String: Int]>([:])
        let opened = Atomic<Bool>(false)
        /// Callers about to ask for a job.
        let asked = Atomic<Int>(0)

        func run(_ key: String) async throws -> Int {
            let run = runs.withLock { runs in
                runs[key, default: 0] += 1
                return runs[key]!
            }
            while !opened.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
            return run
        }
    }

    @Test func callersOfOneKeyWaitForOneRunAndOtherKeysRunApart() async throws {
        let work = SharedWork<String, Int>()
        let jobs = Jobs()
        let answers = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    jobs.asked.add(1, ordering: .relaxed)
                    return try await work.run("note") { try await jobs.run("note") }
                }
            }
            group.addTask {
                jobs.asked.add(1, ordering: .relaxed)
                return try await work.run("other") { try await jobs.run("other") } * 100
            }
            // Every caller has asked, and both keys have started, before any run ends.
            while jobs.asked.load(ordering: .relaxed) < 9 || jobs.runs.withLock({ $0.count }) < 2 {
                try await Task.sleep(for: .milliseconds(1))
            }
            try await Task.sleep(for: .milliseconds(20))
            jobs.opened.store(true, ordering: .releasing)
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.sorted() == [1, 1, 1, 1, 1, 1, 1, 1, 100])
        #expect(jobs.runs.withLock { $0 } == ["note": 1, "other": 1])
        // Ended, it runs again when asked.
        #expect(try await work.run("note") { try await jobs.run("note") } == 2)
    }

    @Test func aFailureReachesTheCallerAndTheNextRunStartsAfresh() async throws {
        let work = SharedWork<Int, Int>()
        await #expect(throws: Failure()) { try await work.run(1) { throw Failure() } }
        #expect(try await work.run(1) { 7 } == 7)
    }
}

import MakestagramCore
import ServiceLifecycleTestKit
import Synchronization
import Testing

/// A worker answering its doorbell: rings coalesce, a ring during work brings one more run, and a graceful shutdown
/// ends the answering after the work under way.
@Suite(.timeLimit(.minutes(1))) struct DoorbellTests {
    /// Work that counts its runs, and whose runs wait until let go.
    final class Work: Sendable {
        let runs = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        let letGo: Atomic<Bool>
        /// Set once the worker's answering returned.
        let answered = Atomic<Bool>(false)

        func run() async {
            runs.add(1, ordering: .sequentiallyConsistent)
            while !letGo.load(ordering: .sequentiallyConsistent) { try? await Task.sleep(for: .milliseconds(1)) }
            finished.add(1, ordering: .sequentiallyConsistent)
        }

        /// Work whose first run waits until let go when `held`.
        init(held: Bool = false) {
            letGo = Atomic(!held)
        }

        var runCount: Int { runs.load(ordering: .sequentiallyConsistent) }
        var finishedCount: Int { finished.load(ordering: .sequentiallyConsistent) }
        var hasAnswered: Bool { answered.load(ordering: .sequentiallyConsistent) }

        func wait(forRuns count: Int) async {
            while runs.load(ordering: .sequentiallyConsistent) < count { try? await Task.sleep(for: .milliseconds(1)) }
        }
    }

    /// Runs `steps`, once the work's first run started, while a worker answers `bell` with `work`, under a graceful
    /// shutdown `steps` triggers; returns once the answering ended.
    func answering(_ bell: Doorbell, with work: Work, _ steps: (GracefulShutdownTestTrigger) async -> Void) async {
        await testGracefulShutdown { shutdown in
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await bell.answer { await work.run() }
                    work.answered.store(true, ordering: .sequentiallyConsistent)
                }
                await work.wait(forRuns: 1)
                await steps(shutdown)
                await group.waitForAll()
            }
        }
    }

    @Test func ringsBeforeTheWorkerAnswersRunItOnceAndShutdownEndsTheAnswering() async {
        let bell = Doorbell()
        let work = Work()
        for _ in 0..<5 { bell.ring() }
        await answering(bell, with: work) { shutdown in
            shutdown.triggerGracefulShutdown()
        }
        #expect(work.runCount == 1)
    }

    @Test func ringsDuringTheWorkBringOneMoreRun() async {
        let bell = Doorbell()
        let work = Work(held: true)
        bell.ring()
        await answering(bell, with: work) { shutdown in
            for _ in 0..<3 { bell.ring() }
            work.letGo.store(true, ordering: .sequentiallyConsistent)
            await work.wait(forRuns: 2)
            try? await Task.sleep(for: .milliseconds(50))
            #expect(work.runCount == 2)
            shutdown.triggerGracefulShutdown()
        }
        #expect(work.finishedCount == 2)
    }

    @Test func aShutdownLetsTheWorkUnderWayFinishFirst() async {
        let bell = Doorbell()
        let work = Work(held: true)
        bell.ring()
        await answering(bell, with: work) { shutdown in
            shutdown.triggerGracefulShutdown()
            try? await Task.sleep(for: .milliseconds(50))
            #expect(!work.hasAnswered)
            work.letGo.store(true, ordering: .sequentiallyConsistent)
        }
        #expect(work.hasAnswered)
        #expect(work.runCount == 1)
        #expect(work.finishedCount == 1)
    }
}

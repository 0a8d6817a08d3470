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
        let letGo = Atomic<Bool>(true)
        /// Set once the worker's answering returned.
        let answered = Atomic<Bool>(false)

        func run() async {
            runs.add(1, ordering: .sequentiallyConsistent)
            while !letGo.load(ordering: .sequentiallyConsistent) { try? await Task.sleep(for: .milliseconds(1)) }
            finished.add(1, ordering: .sequentiallyConsistent)
        }

        var runCount: Int { runs.load(ordering: .sequentiallyConsistent) }
        var finishedCount: Int { finished.load(ordering: .sequentiallyConsistent) }
        var hasAnswered: Bool { answered.load(ordering: .sequentiallyConsistent) }

        func wait(forRuns count: Int) async {
            while runs.load(ordering: .sequentiallyConsistent) < count { try? await Task.sleep(for: .milliseconds(1)) }
        }
    }

    @Test func ringsBeforeTheWorkerAnswersRunItOnceAndShutdownEndsTheAnswering() async {
        let bell = Doorbell()
        let work = Work()
        for _ in 0..<5 { bell.ring() }
        await testGracefulShutdown { shutdown in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await bell.answer { await work.run() } }
                await work.wait(forRuns: 1)
                shutdown.triggerGracefulShutdown()
                await group.waitForAll()
            }
        }
        #expect(work.runCount == 1)
    }

    @Test func ringsDuringTheWorkBringOneMoreRun() async {
        let bell = Doorbell()
        let work = Work()
        work.letGo.store(false, ordering: .sequentiallyConsistent)
        bell.ring()
        await testGracefulShutdown { shutdown in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await bell.answer { await work.run() } }
                await work.wait(forRuns: 1)
                for _ in 0..<3 { bell.ring() }
                work.letGo.store(true, ordering: .sequentiallyConsistent)
                await work.wait(forRuns: 2)
                try? await Task.sleep(for: .milliseconds(50))
                #expect(work.runCount == 2)
                shutdown.triggerGracefulShutdown()
                await group.waitForAll()
            }
        }
        #expect(work.finishedCount == 2)
    }

    @Test func aShutdownLetsTheWorkUnderWayFinishFirst() async {
        let bell = Doorbell()
        let work = Work()
        work.letGo.store(false, ordering: .sequentiallyConsistent)
        bell.ring()
        await testGracefulShutdown { shutdown in
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await bell.answer { await work.run() }
                    work.answered.store(true, ordering: .sequentiallyConsistent)
                }
                await work.wait(forRuns: 1)
                shutdown.triggerGracefulShutdown()
                try? await Task.sleep(for: .milliseconds(50))
                #expect(!work.hasAnswered)
                work.letGo.store(true, ordering: .sequentiallyConsistent)
                await group.waitForAll()
            }
        }
        #expect(work.hasAnswered)
        #expect(work.runCount == 1)
        #expect(work.finishedCount == 1)
    }
}

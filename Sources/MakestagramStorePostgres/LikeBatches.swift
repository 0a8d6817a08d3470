import MakestagramAPI
import MakestagramStore
import Synchronization

/// Sends the like toggles that arrive together to PostgreSQL as one call of `set_likes`, in one transaction.
///
/// A transaction's fixed costs (the round trip, the snapshot, the commit and its log flush) are most of what a
/// lone toggle costs PostgreSQL (Benchmarks/HISTORY.md); sharing them is what SQLite's group commit does for the
/// other store. A toggle that arrives while fewer than ``maxRunning`` batches are on their way goes at once, so a
/// lone one waits for nobody; the others wait and form the next batch. Each toggle still succeeds or fails alone:
/// a missing post fails only its own toggle, and a batch refused for any other reason than the database being out of
/// reach is sent again one toggle at a time.
final class LikeBatches: Sendable {
    /// One toggle, as asked.
    struct Toggle: Sendable {
        let postID: Int64
        let viewer: Int64
        let liked: Bool
    }

    /// What a batch call answers for each of its toggles: its outcome or its failure.
    typealias Send = @Sendable ([Toggle]) async -> [Result<LikeOutcome, any Error>]

    private struct Waiting {
        let toggle: Toggle
        let continuation: CheckedContinuation<LikeOutcome, any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var running = 0
    }

    /// How many batches may be on their way at once. One: a call costs PostgreSQL about a millisecond whatever it
    /// carries, so the toggles that wait while it runs are worth more as one bigger call than as a second one. On
    /// the benchmark's 2-core machine one batch at a time gave 6,100–7,400 toggles/s, two 5,700–6,600 and three
    /// 5,600–6,200, with lower latency too (Benchmarks/HISTORY.md). Several instances still send one each.
    let maxRunning: Int
    /// The most toggles one call carries.
    let maxBatch: Int
    private let state = Mutex(State())

    init(maxRunning: Int = 1, maxBatch: Int = 256) {
        self.maxRunning = maxRunning
        self.maxBatch = maxBatch
    }

    /// Sends `toggle` with whichever others are waiting, and answers its own outcome; `send` makes the call (every
    /// caller passes the same).
    func submit(_ toggle: Toggle, send: @escaping Send) async throws -> LikeOutcome {
        try await withCheckedThrowingContinuation { continuation in
            let start = state.withLock { state in
                state.waiting.append(Waiting(toggle: toggle, continuation: continuation))
                guard state.running < maxRunning else { return false }
                state.running += 1
                return true
            }
            if start { Task { await self.drain(send) } }
        }
    }

    /// Sends batches until nobody waits.
    private func drain(_ send: Send) async {
        while true {
            let batch = state.withLock { state in
                let count = min(state.waiting.count, maxBatch)
                let batch = Array(state.waiting.prefix(count))
                state.waiting.removeFirst(count)
                if batch.isEmpty { state.running -= 1 }
                return batch
            }
            if batch.isEmpty { return }
            let results = await send(batch.map(\.toggle))
            for (waiting, result) in zip(batch, results) { waiting.continuation.resume(with: result) }
        }
    }
}

/// A toggle's answer: the post's like state after it, and the change to publish if the toggle changed something.
struct LikeOutcome: Sendable {
    let state: LikeState
    let change: LikeChange?
}

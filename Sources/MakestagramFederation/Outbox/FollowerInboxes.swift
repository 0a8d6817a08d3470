import Foundation
import MakestagramStore
import Synchronization

/// The inboxes that reach each author's remote followers (``FederationStoring/remoteFollowerInboxes(of:)``), kept for
/// federation's consumer of the change log: a post by someone with ten thousand followers elsewhere reads ten thousand
/// follows to find a hundred servers, and their next post would read them again.
///
/// Kept true by the consumer itself, in log order: each change it reads that can change an answer (a follow or
/// unfollow of that author; a person removed or restored, whose follows count again or no longer; a block of a
/// server) is noted before the changes after it are turned into deliveries (``note(_:)``). A consumer that did not
/// read the log's previous batch itself (at start, or after another instance of a shared database consumed for a
/// while) starts empty (``clear()``). An answer is kept at most ``maxAge``: a server that moves its shared inbox says
/// so only in its people's documents, which change nothing in the log.
final class FollowerInboxes: Sendable {
    private let held = Mutex<[Int64: (inboxes: [String], at: ContinuousClock.Instant)]>([:])
    /// The most authors kept; past it, all are forgotten and read again as they post.
    static var limit: Int { 10_000 }
    /// How long an answer is kept.
    static var maxAge: Duration { .seconds(300) }

    /// The inboxes of `author`'s remote followers, from memory or read from `store`.
    func inboxes(of author: Int64, in store: some FederationStoring) async throws -> [String] {
        let now = ContinuousClock.now
        if let kept = held.withLock({ $0[author] }), now - kept.at < Self.maxAge { return kept.inboxes }
        let inboxes = try await store.remoteFollowerInboxes(of: author)
        held.withLock { held in
            if held.count >= Self.limit { held = [:] }
            held[author] = (inboxes, now)
        }
        return inboxes
    }

    /// Forgets what `event` may have changed.
    func note(_ event: StoreEvent) {
        switch event {
        case .followChanged(_, let followee, _):
            held.withLock { _ = $0.removeValue(forKey: followee) }
        case .userRemoved, .userRestored, .domainBlockChanged, .changesMissed:
            clear()
        default:
            break
        }
    }

    func clear() {
        held.withLock { $0 = [:] }
    }
}

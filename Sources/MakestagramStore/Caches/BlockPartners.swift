import Synchronization

/// For each user recently seen, everyone they block or are blocked by (ID and username): the people a viewer's
/// lists, likers previews and comments leave out. Loaded from the store on first need; a block or unblock between two
/// users forgets both (``StoreCaches/apply(_:)``), on every instance, through the change log.
package final class BlockPartners: Sendable {
    private struct State {
        var partners: [Int64: [Int64: String]] = [:]
        /// Grows with every forgetting, so that a set read from the database before a block committed is not kept
        /// after the block's change was applied.
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())
    /// At most this many users' sets are kept; when full, the cache starts over.
    let capacity: Int

    package init(capacity: Int = 50_000) {
        self.capacity = capacity
    }

    /// The user's partners if held, with the generation to hand back to ``keep(_:for:generation:)`` otherwise.
    package func lookup(_ user: Int64) -> (partners: [Int64: String]?, generation: UInt64) {
        state.withLock { ($0.partners[user], $0.generation) }
    }

    /// Keeps a user's partners read from the database, unless something was forgotten since `generation`.
    package func keep(_ partners: [Int64: String], for user: Int64, generation: UInt64) {
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.partners.count >= capacity { state.partners.removeAll(keepingCapacity: true) }
            state.partners[user] = partners
        }
    }

    package func forget(_ users: [Int64]) {
        state.withLock { state in
            state.generation &+= 1
            for user in users { state.partners[user] = nil }
        }
    }

    package func removeAll() {
        state.withLock { state in
            state.generation &+= 1
            state.partners.removeAll()
        }
    }
}

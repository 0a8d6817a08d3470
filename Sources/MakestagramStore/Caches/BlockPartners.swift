import Synchronization

/// Everyone one user blocks or is blocked by: by ID with their usernames, and the usernames as a set (what the user's
/// likers previews and comments leave out). `stamp` differs for every set read, so that what was rendered for the
/// user with one set is known not to fit another.
public final class BlockPartnerSet: Sendable {
    public let ids: [Int64: String]
    public let names: Set<String>
    public let stamp: UInt64

    package init(_ ids: [Int64: String], stamp: UInt64) {
        self.ids = ids
        self.names = Set(ids.values)
        self.stamp = stamp
    }

    public var isEmpty: Bool { ids.isEmpty }

    /// Whether `user` is one of them.
    public func contains(_ user: Int64) -> Bool { ids[user] != nil }
}

/// For each user recently seen, their ``BlockPartnerSet``. Loaded from the store on first need; a block or unblock
/// between two users forgets both (``StoreCaches/apply(_:)``), on every instance, through the change log.
package final class BlockPartners: Sendable {
    private struct State {
        var partners: [Int64: BlockPartnerSet] = [:]
        /// Grows with every forgetting, so that a set read from the database before a block committed is not kept
        /// after the block's change was applied.
        var generation: UInt64 = 0
        var nextStamp: UInt64 = 1
    }

    private let state = Mutex(State())
    /// At most this many users' sets are kept; when full, the cache starts over.
    let capacity: Int

    package init(capacity: Int = 50_000) {
        self.capacity = capacity
    }

    /// The user's partners if held, with the generation to hand back to ``keep(_:for:generation:)`` otherwise.
    package func lookup(_ user: Int64) -> (partners: BlockPartnerSet?, generation: UInt64) {
        state.withLock { ($0.partners[user], $0.generation) }
    }

    /// Makes a set of a user's partners read from the database, and keeps it unless something was forgotten since
    /// `generation`.
    package func keep(_ ids: [Int64: String], for user: Int64, generation: UInt64) -> BlockPartnerSet {
        state.withLock { state in
            let set = BlockPartnerSet(ids, stamp: state.nextStamp)
            state.nextStamp += 1
            guard state.generation == generation else { return set }
            if state.partners.count >= capacity { state.partners.removeAll(keepingCapacity: true) }
            state.partners[user] = set
            return set
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

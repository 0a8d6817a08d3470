import MakestagramAPI
import Synchronization

/// Live sessions recently looked up, so that an authenticated request does not need a database read to learn whose
/// token it carries.
///
/// Exact, not eventually right: every session ends through ``SQLiteStore/deleteSession(tokenHash:)``, which removes
/// the entry when its transaction commits, before the log-out is answered. A lookup that read the database before
/// such a removal and finishes after it would put the ended session back; a generation number, bumped by every
/// removal, turns that insertion away. A user's summary never changes once created, so entries need no other
/// invalidation.
final class SessionCache: Sendable {
    /// A SHA-256 token hash as four words: hashing and comparing it costs a few instructions.
    struct Key: Hashable {
        let words: (UInt64, UInt64, UInt64, UInt64)

        init?(_ hash: [UInt8]) {
            guard hash.count == 32 else { return nil }
            words = hash.withUnsafeBytes {
                (
                    $0.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                    $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                    $0.loadUnaligned(fromByteOffset: 16, as: UInt64.self),
                    $0.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                )
            }
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.words == rhs.words
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
        }
    }

    private struct State {
        var users: [Key: UserSummary] = [:]
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())
    /// At most this many sessions are kept; when full, the cache starts over (lookups then refill it).
    let capacity: Int

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// The cached user of a session, and the generation to pass to ``insert(_:for:generation:)`` on a miss.
    func lookup(_ key: Key) -> (user: UserSummary?, generation: UInt64) {
        state.withLock { ($0.users[key], $0.generation) }
    }

    /// Remembers a session read from the database, unless a session ended since `generation` was read.
    func insert(_ user: UserSummary, for key: Key, generation: UInt64) {
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.users.count >= capacity { state.users.removeAll(keepingCapacity: true) }
            state.users[key] = user
        }
    }

    /// Forgets a session that has ended.
    func remove(_ key: Key) {
        state.withLock { state in
            state.generation &+= 1
            state.users[key] = nil
        }
    }
}

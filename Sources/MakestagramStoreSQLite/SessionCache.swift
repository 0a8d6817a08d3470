import MakestagramAPI

/// Live sessions recently looked up, so that an authenticated request does not need a database read to learn whose
/// token it carries.
///
/// Exact, not eventually right: every session ends through ``SQLiteStore/deleteSession(tokenHash:)``, which removes
/// the entry when its transaction commits, before the log-out is answered; a lookup that raced the log-out cannot
/// put the session back (see ``CommittedCache``). A user's summary never changes once created, so entries need no
/// other invalidation.
typealias SessionCache = CommittedCache<SessionKey, UserSummary>

/// A SHA-256 token hash as four words: hashing and comparing it costs a few instructions.
struct SessionKey: Hashable, Sendable {
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

    static func == (lhs: SessionKey, rhs: SessionKey) -> Bool {
        lhs.words == rhs.words
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
    }
}

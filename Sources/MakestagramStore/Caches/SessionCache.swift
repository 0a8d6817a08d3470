import MakestagramAPI

/// Live sessions recently looked up, so that an authenticated request does not need a database read to learn whose
/// token it carries.
///
/// A log-out removes the entry (``StoreCaches/apply(_:)``, for ``StoreEvent/sessionEnded(tokenHash:)``) when it
/// commits, before it is answered, and on every other instance when the change stream brings it; a lookup that raced
/// the log-out cannot put the session back (see ``CommittedCache``).
package typealias SessionCache = CommittedCache<SessionKey, SessionIdentity>

/// A SHA-256 token hash as four words: hashing and comparing it costs a few instructions.
package struct SessionKey: Hashable, Sendable {
    let words: (UInt64, UInt64, UInt64, UInt64)

    package init?(_ hash: [UInt8]) {
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

    package static func == (lhs: SessionKey, rhs: SessionKey) -> Bool {
        lhs.words == rhs.words
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
    }
}

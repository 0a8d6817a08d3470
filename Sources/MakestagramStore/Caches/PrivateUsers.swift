import Synchronization

/// The users whose accounts are private, kept in memory so that the media routes know which files to serve only at
/// signed URLs (``MediaSigning``) without asking the database at every request.
///
/// A store loads it when it opens (``replaceAll(_:)``); after that only ``StoreCaches/apply(_:)`` changes it, from
/// ``StoreEvent/privacyChanged(user:isPrivate:)``, so every instance of a shared database learns it through the
/// change stream. Its version also grows when a private account's files may have changed (a new post, new
/// renditions), for the media routes to read the files again.
package final class PrivateUsers: Sendable {
    private let users = Mutex<Set<Int64>>([])
    private let changes = Atomic<UInt64>(0)

    package init() {}

    /// Whether no account is private, and a number that grows whenever their files may have changed.
    package var summary: HiddenUsersSummary {
        HiddenUsersSummary(isEmpty: users.withLock { $0.isEmpty }, version: changes.load(ordering: .acquiring))
    }

    package func contains(_ user: Int64) -> Bool {
        users.withLock { $0.contains(user) }
    }

    /// Forgets what it held and holds `users` instead.
    package func replaceAll(_ ids: Set<Int64>) {
        users.withLock { $0 = ids }
        changed()
    }

    func set(_ user: Int64, isPrivate: Bool) {
        users.withLock { users in
            if isPrivate { users.insert(user) } else { users.remove(user) }
        }
        changed()
    }

    /// A private account's files may have changed.
    func changed() {
        changes.add(1, ordering: .releasing)
    }
}

import Synchronization

/// The users nobody may see (suspended, or being deleted), kept in memory so that reads leave them out of what rows
/// only name: a post's likers preview holds usernames, written when each like was, and must not show someone who has
/// since been suspended.
///
/// A store loads it when it opens (``replaceAll(_:)``); after that only ``StoreCaches/apply(_:)`` changes it, from
/// ``StoreEvent/userRemoved(user:username:status:)`` and ``StoreEvent/userRestored(user:username:)``, so every
/// instance of a shared database learns it through the change stream like every other cache.
package final class HiddenUsers: Sendable {
    private struct State {
        var byID: [Int64: String] = [:]
        var names: Set<String> = []
    }

    private let state = Mutex(State())
    private let changes = Atomic<UInt64>(0)

    package init() {}

    /// Whether nobody is hidden (the usual case), and a number that grows whenever who is hidden may have changed.
    package var summary: HiddenUsersSummary {
        HiddenUsersSummary(isEmpty: state.withLock { $0.byID.isEmpty }, version: changes.load(ordering: .acquiring))
    }

    /// The hidden users' usernames (usually none), as one snapshot for a whole read.
    package var names: Set<String> {
        state.withLock { $0.names }
    }

    /// Forgets what it held and hides `users` (ID → username) instead.
    package func replaceAll(_ users: [Int64: String]) {
        state.withLock {
            $0.byID = users
            $0.names = Set(users.values)
        }
        changes.add(1, ordering: .releasing)
    }

    func hide(_ id: Int64, username: String) {
        state.withLock {
            $0.byID[id] = username
            $0.names.insert(username)
        }
        changes.add(1, ordering: .releasing)
    }

    func show(_ id: Int64) {
        state.withLock {
            guard let name = $0.byID.removeValue(forKey: id) else { return }
            $0.names.remove(name)
        }
        changes.add(1, ordering: .releasing)
    }
}

/// Whether anyone is hidden, and a number that grows whenever who is may have changed: what the media routes check
/// on every request before they look further.
public struct HiddenUsersSummary: Sendable, Equatable {
    public var isEmpty: Bool
    public var version: UInt64
}

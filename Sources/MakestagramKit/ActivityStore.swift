import Foundation
import Incremental
import MakestagramAPI

/// The viewer's activity — what others did to them, grouped (``ActivityGroup``) — and their unread count, as
/// Incremental values for a heart tab with a badge. The count follows the event stream (`activity.changed`) without
/// a request; the list is loaded with ``refresh()`` and ``loadMore()``, and loaded again by itself when the count
/// changes while it is shown (``isShown``).
@MainActor
public final class ActivityStore {
    /// The groups loaded so far, the group with the newest action first.
    public var groups: I<[ActivityGroup]> { groupsInput.i }
    /// How many actions are unread (a like, a comment and a follow count one each): the badge.
    public var unreadCount: I<Int> { unreadInput.i }
    /// Whether older groups remain to be loaded.
    public var hasMore: I<Bool> { hasMoreInput.i }
    /// Set while a screen shows the list: a change of the count then loads the first page again.
    public var isShown = false

    private let client: APIClient
    private let groupsInput = Input<[ActivityGroup]>([])
    private let unreadInput = Input<Int>(0)
    private let hasMoreInput = Input<Bool>(false)
    private var cursor: String?
    private var reloading: Task<Void, Never>?

    init(client: APIClient) {
        self.client = client
    }

    /// Loads the first page (pull to refresh).
    public func refresh() async throws {
        let page = try await client.activity()
        groupsInput.write(page.items)
        cursor = page.nextCursor
        hasMoreInput.write(page.nextCursor != nil)
    }

    /// Loads the next page of older groups, if any.
    public func loadMore() async throws {
        guard let cursor else { return }
        let page = try await client.activity(cursor: cursor)
        let known = Set(groupsInput.value.map(\.id))
        groupsInput.write(groupsInput.value + page.items.filter { !known.contains($0.id) })
        self.cursor = page.nextCursor
        hasMoreInput.write(page.nextCursor != nil)
    }

    /// Marks what the list shows as read (up to its newest group; whatever arrived after stays unread).
    public func markShownAsRead() async throws {
        guard let newest = groupsInput.value.first else { return }
        let answer = try await client.markActivityRead(through: newest.latestId)
        unreadInput.write(answer.unreadCount)
        groupsInput.write(
            groupsInput.value.map { group in
                var group = group
                if group.latestId <= newest.latestId { group.unread = false }
                return group
            })
    }

    /// Asks the server for the unread count (at start, and when the event stream is back after a drop).
    public func refreshUnreadCount() async throws {
        unreadInput.write(try await client.unreadActivity().unreadCount)
    }

    /// A count from the event stream.
    func received(unreadCount: Int) {
        unreadInput.write(unreadCount)
        guard isShown else { return }
        reloading?.cancel()
        reloading = Task { [weak self] in try? await self?.refresh() }
    }

    /// Forgets everything (another user logged in, or nobody).
    func reset() {
        reloading?.cancel()
        groupsInput.write([])
        unreadInput.write(0)
        hasMoreInput.write(false)
        cursor = nil
    }
}

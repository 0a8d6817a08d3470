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
    /// Whether a reload of the shown list is on its way, and whether another was asked for meanwhile: a burst of
    /// counts costs at most one request in flight and one after it, never one per count.
    private var reloading = false
    private var reloadAgain = false
    /// Changes when the store is reset, so that an answer for the previous user is dropped.
    private var generation = 0

    init(client: APIClient) {
        self.client = client
    }

    /// Loads the first page (pull to refresh).
    public func refresh() async throws {
        let generation = generation
        let page = try await client.activity()
        guard generation == self.generation else { return }
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
        let generation = generation
        let count = try await client.unreadActivity().unreadCount
        guard generation == self.generation else { return }
        unreadInput.write(count)
    }

    /// A count from the event stream.
    func received(unreadCount: Int) {
        unreadInput.write(unreadCount)
        guard isShown else { return }
        guard !reloading else {
            reloadAgain = true
            return
        }
        reloading = true
        Task { [weak self] in
            while let self {
                self.reloadAgain = false
                try? await self.refresh()
                guard self.reloadAgain && self.isShown else {
                    self.reloading = false
                    return
                }
            }
        }
    }

    /// Forgets everything (another user logged in, or nobody).
    func reset() {
        generation += 1
        reloadAgain = false
        groupsInput.write([])
        unreadInput.write(0)
        hasMoreInput.write(false)
        cursor = nil
    }
}

import MakestagramAPI
import MakestagramStore

/// The top of each recently read home timeline and the versions of the posts in it, so that a timeline page (and
/// a pull to refresh) is listed without a database read.
///
/// Kept true by the changes that reach them (see ``StoreCaches``): a new post is put at the top of its audience's
/// windows, a deleted one taken out, a like or unlike sets the liker's flag, a follow or unfollow drops the
/// follower's window, and every change to a post drops its version.
package final class TimelineCache: Sendable {
    /// Viewer → the top of their timeline.
    package let windows = CommittedCache<Int64, TimelineWindow>(capacity: 20_000)
    /// Post → its version.
    package let versions = CommittedCache<Int64, Int64>(capacity: 500_000)

    package init() {}

    /// The page listed from memory, or nil unless `window` holds all of it and every version is kept.
    package func page(_ request: PageRequest, in window: TimelineWindow) -> PageResult<ListedPost>? {
        guard let slice = window.page(request), let versions = versions.values(slice.entries.lazy.map(\.id))
        else { return nil }
        let items = zip(slice.entries, versions).map { entry, version in
            ListedPost.known(id: entry.id, version: version, viewerHasLiked: entry.viewerHasLiked)
        }
        return PageResult(items: items, nextKey: slice.nextKey, newestKey: slice.newestKey)
    }

    /// Keeps `top`, the first ``TimelineWindow/size`` posts of `viewer`'s timeline read from the database, unless a
    /// change reached the cache since the generations were taken; answers the part of it that `request` asks for,
    /// or nil if the request reaches past it.
    package func keep(
        top: PageResult<ListedPost>, for viewer: Int64, windowGeneration: UInt64, versionGeneration: UInt64,
        answering request: PageRequest
    ) -> PageResult<ListedPost>? {
        let window = TimelineWindow(
            entries: top.items.map {
                TimelineWindow.Entry(id: $0.id, viewerHasLiked: $0.viewerHasLiked, likeVersion: $0.version)
            },
            complete: top.nextKey == nil)
        windows.insert(window, for: viewer, generation: windowGeneration)
        versions.insert(top.items.map { ($0.id, $0.version) }, generation: versionGeneration)
        guard let slice = window.page(request) else { return nil }
        // The window's entries are the top's items, index for index.
        return PageResult(
            items: Array(top.items[slice.entries.indices]), nextKey: slice.nextKey, newestKey: slice.newestKey)
    }

    // MARK: Reading a home timeline, on either store

    /// How a page of a home timeline is read; both stores follow it, each with its own reads.
    package enum Read: Sendable {
        /// From the kept window, and the caller holds every post of it: nothing to read.
        case answered(PageResult<ListedPost>)
        /// From the kept window: read in full the posts the caller does not hold.
        case fromWindow(PageResult<ListedPost>)
        /// From the database, in one read transaction: ``list(_:listing:)-(_,_)`` with the store's listing query, then
        /// read in full the posts the caller does not hold.
        case fromDatabase(Plan)
    }

    /// A page to list from the database, with the cache generations taken before the read.
    package struct Plan: Sendable {
        let viewer: Int64
        let page: PageRequest
        let windowGeneration: UInt64
        let versionGeneration: UInt64
        /// Whether the cache may be filled: false while it cannot be trusted to follow the database.
        let filling: Bool
        /// Whether the top of the timeline is listed to be kept (the first page, or a pull to refresh, of a
        /// timeline not kept), and the page answered from it.
        let keepsTop: Bool
    }

    /// The first step of reading `page` of `viewer`'s home timeline. With `trusted` false (a cache that may be
    /// behind the database) everything is read from the database and nothing kept.
    package func read(viewer: Int64, page: PageRequest, known: KnownPosts, trusted: Bool = true) -> Read {
        let (window, windowGeneration) = trusted ? windows.lookup(viewer) : (nil, 0)
        if let window, let listed = self.page(page, in: window) {
            return listed.items.allSatisfy({ known($0.id, $0.version) }) ? .answered(listed) : .fromWindow(listed)
        }
        return .fromDatabase(
            Plan(
                viewer: viewer, page: page, windowGeneration: windowGeneration, versionGeneration: versions.generation,
                filling: trusted, keepsTop: trusted && window == nil && !page.position.isAfter))
    }

    /// The page `plan` asks for, listed with `listing` (the store's query for a page of the timeline) inside the
    /// caller's read transaction: the top of the timeline kept and the page answered from it, or the page itself
    /// with its posts' versions kept.
    package func list(_ plan: Plan, listing: (PageRequest) throws -> PageResult<ListedPost>) rethrows -> PageResult<
        ListedPost
    > {
        if plan.keepsTop, let page = keep(plan, top: try listing(PageRequest(limit: TimelineWindow.size))) {
            return page
        }
        return keepVersions(plan, of: try listing(plan.page))
    }

    /// ``list(_:listing:)-(_,_)`` for a store whose reads are asynchronous.
    package func list(_ plan: Plan, listing: (PageRequest) async throws -> PageResult<ListedPost>) async rethrows
        -> PageResult<ListedPost>
    {
        if plan.keepsTop, let page = keep(plan, top: try await listing(PageRequest(limit: TimelineWindow.size))) {
            return page
        }
        return keepVersions(plan, of: try await listing(plan.page))
    }

    private func keep(_ plan: Plan, top: PageResult<ListedPost>) -> PageResult<ListedPost>? {
        keep(
            top: top, for: plan.viewer, windowGeneration: plan.windowGeneration,
            versionGeneration: plan.versionGeneration, answering: plan.page)
    }

    private func keepVersions(_ plan: Plan, of list: PageResult<ListedPost>) -> PageResult<ListedPost> {
        if plan.filling { versions.insert(list.items.map { ($0.id, $0.version) }, generation: plan.versionGeneration) }
        return list
    }

    // MARK: Changes, applied when their transaction commits

    func postCreated(_ postID: Int64, audience: [Int64]) {
        windows.update(audience) { $0.insert(postID) }
    }

    func postDeleted(_ postID: Int64, audience: [Int64]) {
        windows.update(audience) { $0.remove(postID) }
        versions.remove(CollectionOfOne(postID))
    }

    /// A like or unlike of `postID` by `viewer` that left the post at `version`.
    func likeChanged(_ postID: Int64, viewer: Int64, liked: Bool, version: Int64) {
        windows.update(CollectionOfOne(viewer)) { $0.setLiked(postID, liked, at: version) }
        versions.remove(CollectionOfOne(postID))
    }

    /// Any other change to a post (a comment added or deleted).
    func postChanged(_ postID: Int64) {
        versions.remove(CollectionOfOne(postID))
    }

    func followsChanged(viewer: Int64) {
        windows.remove(CollectionOfOne(viewer))
    }

    /// Forgets everything.
    func removeAll() {
        windows.removeAll()
        versions.removeAll()
    }
}

/// The newest posts of one viewer's home timeline, newest first, with whether the viewer likes each.
package struct TimelineWindow: Sendable, Equatable {
    package struct Entry: Sendable, Equatable {
        package let id: Int64
        package var viewerHasLiked: Bool
        /// The post's version when `viewerHasLiked` was learned: a like or unlike applies only if it is newer (with
        /// several instances, one's own change and another's may reach a cache in either order).
        package var likeVersion: Int64

        package init(id: Int64, viewerHasLiked: Bool, likeVersion: Int64 = 0) {
            self.id = id
            self.viewerHasLiked = viewerHasLiked
            self.likeVersion = likeVersion
        }
    }

    /// Enough for the largest page and the entry that tells whether more follow it.
    package static let size = Limits.maxPageSize + 1

    /// Newest first: every post of the timeline from the newest to the last entry's.
    package private(set) var entries: [Entry]
    /// Whether `entries` are the whole timeline.
    package private(set) var complete: Bool

    package init(entries: [Entry], complete: Bool) {
        self.entries = entries
        self.complete = complete
    }

    /// What a page request gets from this window, or nil if the page reaches past it.
    package func page(_ request: PageRequest) -> (entries: ArraySlice<Entry>, nextKey: Int64?, newestKey: Int64?)? {
        let limit = request.limit
        let rest: ArraySlice<Entry>
        switch request.position {
        case .start:
            rest = entries[...]
        case .after(let key):
            rest = entries[(entries.firstIndex { $0.id < key } ?? entries.endIndex)...]
        case .newerThan(let key):
            // Every post newer than the key is here if the window reaches down to the key.
            guard complete || (entries.last.map { $0.id <= key } ?? false) else { return nil }
            // The posts just above the key, so that repeating with the new top fills any gap.
            let newer = entries.prefix { $0.id > key }.suffix(limit)
            return (newer, nil, newer.first?.id ?? key)
        }
        guard complete || rest.count > limit else { return nil }
        let page = rest.prefix(limit)
        return (page, rest.count > limit ? page.last?.id : nil, page.first?.id)
    }

    package mutating func insert(_ postID: Int64) {
        let index = entries.firstIndex { $0.id <= postID } ?? entries.endIndex
        guard index == entries.endIndex || entries[index].id != postID else { return }
        // Past the last entry of an incomplete window the post may be preceded by others not held here.
        guard index < entries.endIndex || complete else { return }
        entries.insert(Entry(id: postID, viewerHasLiked: false), at: index)
        if entries.count > Self.size {
            entries.removeLast()
            complete = false
        }
    }

    package mutating func remove(_ postID: Int64) {
        entries.removeAll { $0.id == postID }
    }

    package mutating func setLiked(_ postID: Int64, _ liked: Bool, at version: Int64) {
        guard let index = entries.firstIndex(where: { $0.id == postID }), entries[index].likeVersion < version else {
            return
        }
        entries[index].viewerHasLiked = liked
        entries[index].likeVersion = version
    }
}

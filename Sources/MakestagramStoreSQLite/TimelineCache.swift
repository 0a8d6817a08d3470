import GRDB
import MakestagramAPI
import MakestagramStore

/// The top of each recently read home timeline and the versions of the posts in it, so that a timeline page (and
/// a pull to refresh) is listed without a database read.
///
/// Kept exact by the writes that change them, when they commit (see ``CommittedCache``): a new post is put at the
/// top of its audience's windows, a deleted one taken out, a like or unlike sets the liker's flag, and a follow or
/// unfollow drops the follower's window. Versions are dropped by ``ChangedPosts`` whenever a post row changes, so
/// no write path can forget them.
final class TimelineCache: Sendable {
    /// Viewer → the top of their timeline.
    let windows = CommittedCache<Int64, TimelineWindow>(capacity: 20_000)
    /// Post → its version.
    let versions = CommittedCache<Int64, Int64>(capacity: 500_000)

    /// The page listed from memory, or nil unless `window` holds all of it and every version is kept.
    func page(_ request: PageRequest, in window: TimelineWindow) -> PageResult<ListedPost>? {
        guard let slice = window.page(request), let versions = versions.values(slice.entries.lazy.map(\.id))
        else { return nil }
        let items = zip(slice.entries, versions).map { entry, version in
            ListedPost.known(id: entry.id, version: version, viewerHasLiked: entry.viewerHasLiked)
        }
        return PageResult(items: items, nextKey: slice.nextKey, newestKey: slice.newestKey)
    }

    // MARK: Changes, applied when their transaction commits

    func postCreated(_ postID: Int64, audience: [Int64]) {
        windows.update(audience) { $0.insert(postID) }
    }

    func postDeleted(_ postID: Int64, audience: [Int64]) {
        windows.update(audience) { $0.remove(postID) }
    }

    func likeChanged(_ postID: Int64, viewer: Int64, liked: Bool) {
        windows.update(CollectionOfOne(viewer)) { $0.setLiked(postID, liked) }
    }

    func followsChanged(viewer: Int64) {
        windows.remove(CollectionOfOne(viewer))
    }
}

/// The newest posts of one viewer's home timeline, newest first, with whether the viewer likes each.
struct TimelineWindow: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        let id: Int64
        var viewerHasLiked: Bool
    }

    /// Enough for the largest page and the entry that tells whether more follow it.
    static let size = Limits.maxPageSize + 1

    /// Newest first: every post of the timeline from the newest to the last entry's.
    private(set) var entries: [Entry]
    /// Whether `entries` are the whole timeline.
    private(set) var complete: Bool

    init(entries: [Entry], complete: Bool) {
        self.entries = entries
        self.complete = complete
    }

    /// What a page request gets from this window, or nil if the page reaches past it.
    func page(_ request: PageRequest) -> (entries: ArraySlice<Entry>, nextKey: Int64?, newestKey: Int64?)? {
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

    mutating func insert(_ postID: Int64) {
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

    mutating func remove(_ postID: Int64) {
        entries.removeAll { $0.id == postID }
    }

    mutating func setLiked(_ postID: Int64, _ liked: Bool) {
        if let index = entries.firstIndex(where: { $0.id == postID }) { entries[index].viewerHasLiked = liked }
    }
}

/// Drops the kept version of every post whose row changes (likes, comments and reports update it through
/// triggers; deletes remove it), when its transaction ends. Dropping more than changed is harmless, so a rolled-back
/// transaction drops too.
final class ChangedPosts: TransactionObserver, @unchecked Sendable {
    private let versions: CommittedCache<Int64, Int64>
    // Only touched on the writer's queue, by GRDB's callbacks.
    private var changed: [Int64] = []

    init(versions: CommittedCache<Int64, Int64>) {
        self.versions = versions
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        switch eventKind {
        case .insert: false
        case .update, .delete: eventKind.tableName == "posts"
        }
    }

    func databaseDidChange(with event: DatabaseEvent) {
        changed.append(event.rowID)
    }

    func databaseDidCommit(_ db: Database) {
        end()
    }

    func databaseDidRollback(_ db: Database) {
        end()
    }

    private func end() {
        guard !changed.isEmpty else { return }
        versions.remove(changed)
        changed.removeAll(keepingCapacity: true)
    }
}

import Foundation
import Incremental
import MakestagramAPI

/// A list of posts as a screen shows it: the home timeline or one user's posts, newest first, as an incremental
/// array of ``PostModel``s (rows insert and remove one by one). ``refresh()`` fetches what is newer (pull to
/// refresh), ``loadMore()`` what is older (infinite scroll), each with its loading state as an `I<Bool>`.
/// With an offline cache the last pages seen are shown at once, before the network answers.
@MainActor
public final class FeedStore {
    /// Which posts a feed lists.
    public enum Source: Sendable, Hashable {
        /// The viewer's posts and those of whom they follow.
        case home
        /// One user's posts.
        case user(String)

        var cacheKey: String {
            switch self {
            case .home: "home"
            case .user(let username): "user-\(username)"
            }
        }
    }

    public let source: Source
    /// The posts, newest first.
    public let posts: IArray<PostModel>
    /// Whether a refresh is on its way.
    public var isRefreshing: I<Bool> { isRefreshingInput.i }
    /// Whether an older page is on its way.
    public var isLoadingMore: I<Bool> { isLoadingMoreInput.i }
    /// Whether older posts remain to be loaded.
    public var hasMore: I<Bool> { hasMoreInput.i }
    /// How many new posts arrived live and wait for ``showNewPosts()`` (the "New posts" pill; home feed only).
    public var newPostCount: I<Int> { newPostCountInput.i }
    /// Whether the posts shown came from the network in this session (not only from the offline cache).
    public var isFresh: I<Bool> { isFreshInput.i }

    private let isRefreshingInput = Input(false)
    private let isLoadingMoreInput = Input(false)
    private let hasMoreInput = Input(true)
    private let newPostCountInput = Input(0)
    private let isFreshInput = Input(false)

    private let store: PostStore
    private let pageSize: Int
    private var nextCursor: String?
    private var newerCursor: String?
    private var waiting: [PostModel] = []

    init(source: Source, store: PostStore, pageSize: Int = Limits.defaultPageSize) {
        self.source = source
        self.store = store
        self.pageSize = pageSize
        self.posts = IArray()
        if let snapshot = store.cache?.feed(source.cacheKey) {
            posts.apply(store.models(for: snapshot.posts).enumerated().map { .insert($1, at: $0) })
            hasMoreInput.write(snapshot.hasMore)
        }
        store.onDeletion { [weak self] id in
            guard let self else { return false }
            self.remove(id)
            return true
        }
    }

    // MARK: Loading

    private func page(cursor: String?) async throws -> Page<Post> {
        switch source {
        case .home: try await store.client.timeline(cursor: cursor, limit: pageSize)
        case .user(let username): try await store.client.posts(by: username, cursor: cursor, limit: pageSize)
        }
    }

    /// Fetches the posts newer than the top of the feed and puts them on top (pull to refresh). The first refresh
    /// of a session replaces whatever the offline cache showed with the server's first page.
    public func refresh() async throws {
        guard !isRefreshing.value else { return }
        isRefreshingInput.write(true)
        defer { isRefreshingInput.write(false) }
        await store.sendPendingLikes()
        if !isFresh.value || newerCursor == nil {
            let first = try await page(cursor: nil)
            replaceAll(with: store.models(for: first.items))
            nextCursor = first.nextCursor
            newerCursor = first.newerCursor ?? newerCursor
            hasMoreInput.write(first.nextCursor != nil)
            isFreshInput.write(true)
        } else {
            insertOnTop(store.models(for: try await fetchNewer()))
        }
        save()
    }

    /// Replaces the feed with the server's first page (what it holds changed below the top: an unmute).
    func reload() async throws {
        isFreshInput.write(false)
        try await refresh()
    }

    /// After the live stream was away: the posts made meanwhile wait behind ``newPostCount``.
    func catchUp() async throws {
        guard isFresh.value, newerCursor != nil else { return }
        for post in try await fetchNewer().reversed() { announce(post) }
    }

    /// Every post newer than the top of the feed, newest first (newer pages come oldest batch first).
    private func fetchNewer() async throws -> [Post] {
        var newer: [Post] = []
        while true {
            let page = try await page(cursor: newerCursor)
            newerCursor = page.newerCursor ?? newerCursor
            newer.insert(contentsOf: page.items, at: 0)
            if page.items.count < pageSize { return newer }
        }
    }

    /// Fetches the next older page and appends it (infinite scroll). Does nothing at the end of the feed or while
    /// a page is already on its way.
    public func loadMore() async throws {
        guard !isLoadingMore.value, hasMore.value else { return }
        if !isFresh.value { return try await refresh() }
        isLoadingMoreInput.write(true)
        defer { isLoadingMoreInput.write(false) }
        let page = try await page(cursor: nextCursor)
        let known = Set(posts.elements.map(\.id))
        let models = store.models(for: page.items).filter { !known.contains($0.id) }
        posts.apply(models.enumerated().map { .insert($1, at: posts.elements.count + $0) })
        nextCursor = page.nextCursor
        hasMoreInput.write(page.nextCursor != nil)
        save()
    }

    // MARK: Live

    /// A post entering the timeline: it waits behind ``newPostCount`` until ``showNewPosts()``, so the list does
    /// not move under the reader's eyes. The viewer's own posts go straight to the top.
    func announce(_ post: Post) {
        guard source == .home, !posts.elements.contains(where: { $0.id == post.id }),
            !waiting.contains(where: { $0.id == post.id })
        else { return }
        let model = store.model(for: post)
        if post.author.id == store.viewer?.id {
            insertOnTop([model])
            save()
        } else {
            waiting.insert(model, at: 0)
            newPostCountInput.write(waiting.count)
        }
    }

    /// Puts the posts that arrived live on top of the feed.
    public func showNewPosts() {
        let models = waiting
        waiting = []
        newPostCountInput.write(0)
        insertOnTop(models)
        save()
    }

    /// Adds a post the viewer just shared to the top.
    public func insert(_ post: Post) {
        guard !posts.elements.contains(where: { $0.id == post.id }) else { return }
        insertOnTop([store.model(for: post)])
        save()
    }

    // MARK: Changing the list

    private func insertOnTop(_ models: [PostModel]) {
        let known = Set(posts.elements.map(\.id))
        let fresh = models.filter { !known.contains($0.id) }
        waiting.removeAll { model in fresh.contains { $0.id == model.id } }
        newPostCountInput.write(waiting.count)
        posts.apply(fresh.enumerated().map { .insert($1, at: $0) })
    }

    private func replaceAll(with models: [PostModel]) {
        var changes: [ArrayChange<PostModel>] = (0..<posts.elements.count).reversed().map { .remove(at: $0) }
        changes += models.enumerated().map { .insert($1, at: $0) }
        posts.apply(changes)
    }

    /// Takes out every post by `username` (someone the viewer muted or blocked), waiting ones too.
    func removePosts(by username: String) {
        for id in (waiting + posts.elements).filter({ $0.author.value.username == username }).map(\.id) { remove(id) }
    }

    /// Takes out the posts among `ids` it holds (the server says they are no longer there for the viewer).
    func removePosts(_ ids: Set<Int64>) {
        for id in (waiting + posts.elements).map(\.id) where ids.contains(id) { remove(id) }
    }

    private func remove(_ id: Int64) {
        waiting.removeAll { $0.id == id }
        newPostCountInput.write(waiting.count)
        guard let index = posts.elements.firstIndex(where: { $0.id == id }) else { return }
        posts.remove(at: index)
        save()
    }

    /// Keeps the first pages for the next launch (which refreshes them before paging on).
    private func save() {
        let shown = posts.elements.prefix(60)
        store.cache?.saveFeed(
            OfflineCache.FeedSnapshot(
                posts: shown.map(\.post), hasMore: shown.count < posts.elements.count || nextCursor != nil),
            key: source.cacheKey)
    }
}

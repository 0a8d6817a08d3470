import MakestagramAPI
import MakestagramStore
import NIOCore
import Synchronization

/// Each post's JSON as the API writes it, kept at the post's version, for lists of posts (home timelines and
/// profiles): the hottest responses, where decoding rows and writing JSON cost more than reading the database.
///
/// A post's JSON changes with its version (every like, unlike, comment, caption edit and deletion bumps it) and with
/// the names and avatars of its author and commenters, which the store's ``Store/renderEpoch`` follows: so an entry
/// at the version a list reads, rendered at the epoch the list was read at, is that post's JSON as it is now, but for
/// `viewerHasLiked`, which the store answers per reader, and the like count, which a post's author may hide from
/// everyone else: each is written into its own gap between the entry's parts. The
/// store asks ``holds(_:_:epoch:)`` while it reads a list and decodes only the posts held at no or another version.
final class RenderedPosts: Sendable {
    /// A post's JSON without its like count and the value of `viewerHasLiked`. A class: a page hands 20 of them
    /// around, and a reference is one retain where this struct's copy was a dozen fields' worth.
    final class Rendered: Sendable {
        let version: Int64
        /// The store's render epoch when the post was read.
        let epoch: UInt64
        let json: ByteBuffer
        /// Where the like count goes in ``json``, for the readers who may see it.
        let countSplit: Int
        /// Where the value of `viewerHasLiked` goes in ``json``.
        let split: Int
        let likeCount: Int
        /// Whether only `author` sees the count.
        let countHidden: Bool
        let author: Int64

        init(
            version: Int64, epoch: UInt64, json: ByteBuffer, countSplit: Int, split: Int, likeCount: Int,
            countHidden: Bool, author: Int64
        ) {
            self.version = version
            self.epoch = epoch
            self.json = json
            self.countSplit = countSplit
            self.split = split
            self.likeCount = likeCount
            self.countHidden = countHidden
            self.author = author
        }

        func showsCount(to viewer: Int64) -> Bool { !countHidden || viewer == author }
    }

    private struct State {
        var entries: [Int64: Rendered] = [:]
        /// The buffers' capacities, summed.
        var bytes = 0
    }

    private let state = Mutex(State())
    /// At most this many bytes of JSON are kept (a post with a short caption takes about 1 KiB, one with the longest
    /// caption and comments up to 32 KiB); when full, the cache starts over.
    let byteLimit: Int

    init(byteLimit: Int = 32 << 20) {
        self.byteLimit = byteLimit
    }

    /// Whether the post's JSON is held at `version`, rendered at render epoch `epoch`.
    func holds(_ id: Int64, _ version: Int64, epoch: UInt64) -> Bool {
        state.withLock { state in state.entries[id].map { $0.version == version && $0.epoch == epoch } ?? false }
    }

    /// Answers whether a post is held at a version for a list read at `epoch` (the store's ``KnownPosts``).
    func known(epoch: UInt64) -> KnownPosts {
        { [self] id, version in holds(id, version, epoch: epoch) }
    }

    /// Renders a post and keeps it, unless a newer version or epoch is already held (two lists read around a
    /// change).
    private func keep(_ post: Post, epoch: UInt64) -> Rendered {
        var writer = JSONWriter(capacity: 1024)
        writer.postUpToLikeCount(post)
        let countSplit = writer.buffer.readableBytes
        writer.postFromLikeCountToViewerHasLiked(post)
        let split = writer.buffer.readableBytes
        writer.postAfterViewerHasLiked(post)
        let rendered = Rendered(
            version: post.version, epoch: epoch, json: writer.buffer, countSplit: countSplit, split: split,
            likeCount: post.likeCount ?? 0, countHidden: post.likeCountHidden, author: post.author.id)
        let size = rendered.json.capacity
        state.withLock { state in
            if let held = state.entries[post.id] {
                if held.version > post.version || held.epoch > epoch { return }
                state.bytes -= held.json.capacity
            }
            if state.bytes + size > byteLimit {
                state.entries.removeAll(keepingCapacity: true)
                state.bytes = 0
            }
            state.entries[post.id] = rendered
            state.bytes += size
        }
        return rendered
    }

    /// A page of a post list read at render epoch `epoch` as its response, with cursors for `list`. Held posts
    /// are copied; the others are rendered and kept. A post that was held when the store asked but has been dropped since (the cache started
    /// over in between) is read again.
    func page(
        _ result: PageResult<ListedPost>, list: String, viewer: Int64, epoch: UInt64, store: some Store
    ) async throws -> WrittenJSON {
        // The held entries, under one lock for the whole page.
        var items = state.withLock { state in
            result.items.map { item -> Rendered? in
                guard case .known(let id, let version, _) = item, let held = state.entries[id],
                    held.version == version && held.epoch == epoch
                else { return nil }
                return held
            }
        }
        var dropped: [Int64] = []
        for (index, item) in result.items.enumerated() where items[index] == nil {
            switch item {
            case .post(let post): items[index] = keep(post, epoch: epoch)
            case .known(let id, _, _): dropped.append(id)
            }
        }
        var likedByViewer = result.items.map(\.viewerHasLiked)
        if !dropped.isEmpty {
            let posts = Dictionary(
                try await store.posts(ids: dropped, viewer: viewer).map { ($0.id, $0) },
                uniquingKeysWith: { first, _ in first })
            for (index, item) in result.items.enumerated() where items[index] == nil {
                // A post deleted meanwhile is left out.
                if let post = posts[item.id] {
                    items[index] = keep(post, epoch: epoch)
                    likedByViewer[index] = post.viewerHasLiked
                }
            }
        }
        // Constants from here on: the closure below reads them without exclusivity checks.
        let entries = items
        let liked = likedByViewer
        var writer = JSONWriter(capacity: 256 + entries.reduce(0) { $0 + ($1?.json.readableBytes ?? 0) + 32 })
        writer.page(
            entries.indices.lazy.filter { entries[$0] != nil }, next: result.nextCursor(list),
            newer: result.newerCursor(list)
        ) { writer, index in
            let rendered = entries[index].unsafelyUnwrapped
            rendered.json.withUnsafeReadableBytes { json in
                writer.json(UnsafeRawBufferPointer(rebasing: json[..<rendered.countSplit]))
                if rendered.showsCount(to: viewer) { writer.likeCountField(rendered.likeCount) }
                writer.json(UnsafeRawBufferPointer(rebasing: json[rendered.countSplit..<rendered.split]))
                writer.bool(liked[index])
                writer.json(UnsafeRawBufferPointer(rebasing: json[rendered.split...]))
            }
        }
        return WrittenJSON(writer: writer)
    }
}

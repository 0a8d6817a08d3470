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
/// everyone else: the entry keeps a gap for the first and the place of the second, to be cut out for the readers
/// who may not see it. The store asks a ``Lookup`` while it reads a list and decodes only the posts held at no or
/// another version; the page is then written from what that lookup found.
final class RenderedPosts: Sendable {
    /// A post's JSON with its like count and without the value of `viewerHasLiked`. A class: a page hands 20 of them
    /// around, and a reference is one retain where this struct's copy was a dozen fields' worth.
    final class Rendered: Sendable {
        let version: Int64
        /// The store's render epoch when the post was read.
        let epoch: UInt64
        let json: ByteBuffer
        /// Where the `likeCount` field (with its leading comma) sits in ``json``, cut out for the readers who may
        /// not see it.
        let count: Range<Int>
        /// Where the value of `viewerHasLiked` goes in ``json``.
        let split: Int
        /// Whether only `author` sees the count.
        let countHidden: Bool
        let author: Int64
        /// The usernames the JSON shows besides the author's: its likers and the authors of its recent comments. A
        /// reader who blocks or is blocked by one of them may not have this JSON (``Visibility``).
        let names: [String]
        /// The stamp of the reader's block partners it was read for (``BlockPartnerSet/stamp``); 0 when shared.
        let stamp: UInt64

        init(
            version: Int64, epoch: UInt64, json: ByteBuffer, count: Range<Int>, split: Int, countHidden: Bool,
            author: Int64, names: [String], stamp: UInt64 = 0
        ) {
            self.names = names
            self.stamp = stamp
            self.version = version
            self.epoch = epoch
            self.json = json
            self.count = count
            self.split = split
            self.countHidden = countHidden
            self.author = author
        }

        func showsCount(to viewer: Int64) -> Bool { !countHidden || viewer == author }

        /// Whether the JSON shows none of `hidden`.
        func fits(_ hidden: Set<String>) -> Bool {
            hidden.isEmpty || !names.contains(where: hidden.contains)
        }

        /// The most bytes this post takes in a page (its JSON and the longest value of `viewerHasLiked`).
        var maximumSize: Int { json.readableBytes + 5 }
    }

    /// The entries one list read found held, at the versions it listed them: the page's writer takes them from here
    /// instead of looking each up again.
    final class Lookup: Sendable {
        let epoch: UInt64
        /// The reader, and their block partners (none: nil): a shared entry showing one of the partners is not the
        /// reader's to have; posts read for this reader (whose likers and comments leave them out) are kept for this
        /// reader alone, with the partners' stamp.
        let viewer: Int64
        let partners: BlockPartnerSet?
        private let owner: RenderedPosts
        /// In the order the store asked, which is the list's order.
        private let found = Mutex<(entries: [(id: Int64, rendered: Rendered)], next: Int)>(([], 0))

        fileprivate init(owner: RenderedPosts, epoch: UInt64, viewer: Int64, partners: BlockPartnerSet?) {
            self.owner = owner
            self.epoch = epoch
            self.viewer = viewer
            self.partners = partners.flatMap { $0.isEmpty ? nil : $0 }
        }

        /// The entry this reader may have for the post at `version`, if held: the shared one when it shows none of
        /// the reader's partners, else the reader's own.
        fileprivate func usable(_ id: Int64, _ version: Int64) -> Rendered? {
            guard let partners else { return owner.held(id, version, epoch: epoch) }
            return owner.usable(id, version, epoch: epoch, viewer: viewer, partners: partners)
        }

        /// What the store asks while it lists (``KnownPosts``).
        var known: KnownPosts {
            { [self] id, version in
                guard let held = usable(id, version) else { return false }
                found.withLock { found in
                    if found.entries.isEmpty { found.entries.reserveCapacity(Limits.maxPageSize + 1) }
                    found.entries.append((id, held))
                }
                return true
            }
        }

        /// The entry found for `id` at `version`, if the list read found it. Asked in the list's order, so the
        /// entry after the last one answered is tried first.
        fileprivate func entry(_ id: Int64, _ version: Int64) -> Rendered? {
            found.withLock { found in
                let entries = found.entries
                let index =
                    found.next < entries.count && entries[found.next].id == id
                    ? found.next : entries.firstIndex { $0.id == id }
                guard let index else { return nil }
                found.next = index + 1
                let rendered = entries[index].rendered
                return rendered.version == version ? rendered : nil
            }
        }
    }

    private struct State {
        var entries: [Int64: Rendered] = [:]
        /// Posts as one reader with block partners sees them (``Lookup/partners``), by reader and post: their own
        /// JSON, or the verdict that the shared JSON shows none of their partners (so that the names are compared
        /// once per version, not at every read).
        var personal: [PersonalKey: Personal] = [:]
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

    /// The entry for the post at `version`, rendered at render epoch `epoch`, if held.
    private func held(_ id: Int64, _ version: Int64, epoch: UInt64) -> Rendered? {
        state.withLock { state in
            state.entries[id].flatMap { $0.version == version && $0.epoch == epoch ? $0 : nil }
        }
    }

    private struct PersonalKey: Hashable {
        let viewer: Int64
        let post: Int64
    }

    /// What a kept verdict counts for against ``byteLimit``.
    private static let verdictSize = 64

    private enum Personal {
        /// The shared entry at this version, epoch and partners' stamp shows none of the reader's partners.
        case fits(version: Int64, epoch: UInt64, stamp: UInt64)
        /// The post rendered for the reader alone (``Rendered/stamp`` is their partners').
        case own(Rendered)

        func matches(_ version: Int64, _ epoch: UInt64, _ stamp: UInt64) -> Bool {
            switch self {
            case .fits(let v, let e, let s): v == version && e == epoch && s == stamp
            case .own(let rendered): rendered.version == version && rendered.epoch == epoch && rendered.stamp == stamp
            }
        }
    }

    /// The entry `viewer`, whose block partners are `partners`, may have for the post at `version` and `epoch`:
    /// the shared one when it shows none of the partners (the verdict kept), else their own, if held.
    fileprivate func usable(_ id: Int64, _ version: Int64, epoch: UInt64, viewer: Int64, partners: BlockPartnerSet)
        -> Rendered?
    {
        state.withLock { state in
            let key = PersonalKey(viewer: viewer, post: id)
            let shared = state.entries[id].flatMap { $0.version == version && $0.epoch == epoch ? $0 : nil }
            if let personal = state.personal[key], personal.matches(version, epoch, partners.stamp) {
                switch personal {
                case .fits: return shared
                case .own(let rendered): return rendered
                }
            }
            guard let shared, shared.fits(partners.names) else { return nil }
            switch state.personal[key] {
            case .own(let held): state.bytes -= held.json.capacity - Self.verdictSize
            case .fits: break
            case nil: state.bytes += Self.verdictSize
            }
            state.personal[key] = .fits(version: version, epoch: epoch, stamp: partners.stamp)
            return shared
        }
    }

    /// Whether the post's JSON is held at `version`, rendered at render epoch `epoch`.
    func holds(_ id: Int64, _ version: Int64, epoch: UInt64) -> Bool {
        held(id, version, epoch: epoch) != nil
    }

    /// A lookup for one list read at render epoch `epoch` by `viewer`, whose block partners are `partners`
    /// (``Store/blockPartners(of:)``).
    func lookup(epoch: UInt64, viewer: Int64 = 0, partners: BlockPartnerSet? = nil) -> Lookup {
        Lookup(owner: self, epoch: epoch, viewer: viewer, partners: partners)
    }

    /// A lookup for one list that `viewer` reads now.
    func lookup(for viewer: Int64, store: some Store) async throws -> Lookup {
        let epoch = store.renderEpoch
        return lookup(epoch: epoch, viewer: viewer, partners: try await store.blockPartners(of: viewer))
    }

    /// Answers whether a post is held at a version for a list read at `epoch` (the store's ``KnownPosts``).
    func known(epoch: UInt64) -> KnownPosts {
        lookup(epoch: epoch).known
    }

    /// Renders a post and keeps it, unless a newer version or epoch is already held (two lists read around a
    /// change).
    /// Renders a post and keeps it: shared, or, read for a reader with block partners (`for`), for that reader alone.
    private func keep(_ post: Post, epoch: UInt64, for lookup: Lookup? = nil) -> Rendered {
        var writer = JSONWriter(capacity: 1024)
        writer.postUpToLikeCount(post)
        let countStart = writer.buffer.readableBytes
        writer.likeCountField(post.likeCount ?? 0)
        let countEnd = writer.buffer.readableBytes
        writer.postFromLikeCountToViewerHasLiked(post)
        let split = writer.buffer.readableBytes
        writer.postAfterViewerHasLiked(post)
        let rendered = Rendered(
            version: post.version, epoch: epoch, json: writer.buffer, count: countStart..<countEnd, split: split,
            countHidden: post.likeCountHidden, author: post.author.id,
            names: post.likers + post.recentComments.map(\.author.username), stamp: lookup?.partners?.stamp ?? 0)
        let size = rendered.json.capacity
        if let lookup, lookup.partners != nil {
            let key = PersonalKey(viewer: lookup.viewer, post: post.id)
            state.withLock { state in
                switch state.personal[key] {
                case .own(let held): state.bytes -= held.json.capacity
                case .fits: state.bytes -= Self.verdictSize
                case nil: break
                }
                if state.bytes + size > byteLimit { Self.startOver(&state) }
                state.personal[key] = .own(rendered)
                state.bytes += size
            }
            return rendered
        }
        state.withLock { state in
            if let held = state.entries[post.id] {
                if held.version > post.version || held.epoch > epoch { return }
                state.bytes -= held.json.capacity
            }
            if state.bytes + size > byteLimit { Self.startOver(&state) }
            state.entries[post.id] = rendered
            state.bytes += size
        }
        return rendered
    }

    private static func startOver(_ state: inout State) {
        state.entries.removeAll(keepingCapacity: true)
        state.personal.removeAll(keepingCapacity: true)
        state.bytes = 0
    }

    /// A page of a post list read at render epoch `epoch` as its response, with cursors for `list`.
    func page(
        _ result: PageResult<ListedPost>, list: String, viewer: Int64, epoch: UInt64, store: some Store
    ) async throws -> WrittenJSON {
        try await page(result, list: list, viewer: viewer, lookup: lookup(epoch: epoch), store: store)
    }

    /// A page of a post list read with `lookup` as its response, with cursors for `list`. Posts the lookup found
    /// are copied; the others are rendered and kept (unless they were read for a reader with block partners, whose
    /// posts may leave likers and comments out). A post listed as held but not found (the cache started over in
    /// between) is read again.
    func page(
        _ result: PageResult<ListedPost>, list: String, viewer: Int64, lookup: Lookup, store: some Store
    ) async throws -> WrittenJSON {
        let epoch = lookup.epoch
        var items: [Rendered?] = []
        items.reserveCapacity(result.items.count)
        var dropped: [Int64] = []
        for item in result.items {
            switch item {
            case .post(let post):
                items.append(keep(post, epoch: epoch, for: lookup))
            case .known(let id, let version, _):
                let entry = lookup.entry(id, version) ?? lookup.usable(id, version)
                if entry == nil { dropped.append(id) }
                items.append(entry)
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
                    items[index] = keep(post, epoch: epoch, for: lookup)
                    likedByViewer[index] = post.viewerHasLiked
                }
            }
        }
        return WrittenJSON(
            writer: Self.write(
                items, liked: likedByViewer, viewer: viewer, next: result.nextCursor(list),
                newer: result.newerCursor(list)))
    }

    /// The page's JSON: each held post's parts copied straight into one buffer sized for all of them.
    private static func write(
        _ items: [Rendered?], liked: [Bool], viewer: Int64, next: String?, newer: String?
    ) -> JSONWriter {
        let size = items.reduce(0) { $0 + ($1?.maximumSize ?? 0) + 1 }
        var writer = JSONWriter(capacity: size + 256)
        writer.raw("{\"items\":[")
        writer.copying(maximumBytes: size) { output in
            var at = 0
            func copy(_ bytes: UnsafeRawBufferPointer) {
                output.baseAddress!.advanced(by: at).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                at += bytes.count
            }
            for index in items.indices {
                guard let rendered = items[index] else { continue }
                if at > 0 {
                    output[at] = UInt8(ascii: ",")
                    at += 1
                }
                rendered.json.withUnsafeReadableBytes { json in
                    if rendered.showsCount(to: viewer) {
                        copy(UnsafeRawBufferPointer(rebasing: json[..<rendered.split]))
                    } else {
                        copy(UnsafeRawBufferPointer(rebasing: json[..<rendered.count.lowerBound]))
                        copy(UnsafeRawBufferPointer(rebasing: json[rendered.count.upperBound..<rendered.split]))
                    }
                    let flag = liked[index] ? JSONWriter.trueBytes : JSONWriter.falseBytes
                    copy(UnsafeRawBufferPointer(start: flag.utf8Start, count: flag.utf8CodeUnitCount))
                    copy(UnsafeRawBufferPointer(rebasing: json[rendered.split...]))
                }
            }
            return at
        }
        writer.raw("]")
        writer.cursors(next: next, newer: newer)
        writer.raw("}")
        return writer
    }
}

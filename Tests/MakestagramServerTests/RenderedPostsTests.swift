import Foundation
import MakestagramAPI
import MakestagramStore
import MakestagramStoreSQLite
import Testing

@testable import MakestagramServer

/// The post JSON kept between pages: what a page holds when entries are shared, replaced or dropped.
struct RenderedPostsTests {
    /// A store with alice's two posts, the first liked by bob.
    func withStore(_ body: (SQLiteStore, _ alice: Int64, _ bob: Int64, _ posts: [Int64]) async throws -> Void)
        async throws
    {
        let folder = FileManager.default.temporaryDirectory.appending(path: "rendered-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = SQLiteStore(database: try AppDatabase(path: folder.appending(path: "db.sqlite").path))
        let alice = try await store.createUser(NewUser(username: "alice", displayName: "Alice", passwordHash: "x")).id
        let bob = try await store.createUser(NewUser(username: "bob", displayName: "Bob", passwordHash: "x")).id
        var posts: [Int64] = []
        for index in 0..<2 {
            let variant = { (kind: String) in StoredVariant(fileName: "\(kind)\(index).jpg", width: 10, height: 10) }
            posts.append(
                try await store.createPost(
                    NewPost(
                        authorID: alice, caption: "post \(index)", width: 10, height: 10, full: variant("f"),
                        thumb: variant("t"))
                ).id)
        }
        _ = try await store.setLike(postID: posts[0], viewer: bob, liked: true)
        try await body(store, alice, bob, posts)
    }

    /// Decodes a written page (comparing decoded pages: dates are written to the second).
    func decode(_ written: WrittenJSON) throws -> Page<Post> {
        try JSONCoding.decoder().decode(Page<Post>.self, from: Data(buffer: written.writer.buffer))
    }

    @Test func pagesFromKeptJSONEqualPagesWrittenInFull() async throws {
        try await withStore { store, alice, bob, _ in
            let rendered = RenderedPosts()
            for viewer in [alice, bob, alice, bob] {
                let expected = try await store.timeline(viewer: alice, page: PageRequest(limit: 10))
                let listed = try await store.posts(
                    username: "alice", viewer: viewer, page: PageRequest(limit: 10), known: rendered.known(epoch: 0))
                let page = try decode(
                    try await rendered.page(try #require(listed), list: "posts", viewer: viewer, epoch: 0, store: store)
                )
                let full = try await store.posts(username: "alice", viewer: viewer, page: PageRequest(limit: 10))
                #expect(page.items == (try decode(try #require(full).page("posts").written)).items)
                #expect(page.items.map(\.id) == expected.items.map(\.id))
            }
            // After the first two pages every post is held: the store lists them without decoding them.
            let listed = try await store.timeline(
                viewer: alice, page: PageRequest(limit: 10), known: rendered.known(epoch: 0))
            #expect(listed.items.allSatisfy { if case .known = $0 { true } else { false } })
        }
    }

    @Test func postsDroppedBetweenListingAndWritingAreReadAgain() async throws {
        try await withStore { store, alice, bob, posts in
            // Everything listed as held, nothing actually held (as after the cache started over).
            let listed = try await store.timeline(viewer: alice, page: PageRequest(limit: 10), known: { _, _ in true })
            let page = try decode(
                try await RenderedPosts().page(listed, list: "timeline", viewer: alice, epoch: 0, store: store))
            let full = try await store.timeline(viewer: alice, page: PageRequest(limit: 10))
            #expect(page.items == (try decode(full.page("timeline").written)).items)
            // A post deleted meanwhile is left out.
            _ = try await store.deletePost(id: posts[0], viewer: alice)
            let rest = try decode(
                try await RenderedPosts().page(listed, list: "timeline", viewer: bob, epoch: 0, store: store))
            #expect(rest.items.map(\.id) == [posts[1]])
        }
    }

    @Test func aFullCacheStartsOverAndNeverGoesBackAVersion() async throws {
        try await withStore { store, alice, bob, posts in
            let rendered = RenderedPosts(byteLimit: 1024)
            let page = try await store.timeline(
                viewer: alice, page: PageRequest(limit: 10), known: rendered.known(epoch: 0))
            _ = try await rendered.page(page, list: "timeline", viewer: alice, epoch: 0, store: store)
            #expect(
                [posts[0], posts[1]].filter { id in
                    page.items.contains { $0.id == id && rendered.holds(id, version(of: $0), epoch: 0) }
                }.count == 1)
            // A newer version is kept; an older one read around the change does not replace it.
            let old = try #require(try await store.post(id: posts[0], viewer: bob))
            _ = try await store.setLike(postID: posts[0], viewer: alice, liked: true)
            let new = try #require(try await store.post(id: posts[0], viewer: bob))
            for post in [new, old] {
                _ = try await rendered.page(
                    PageResult(items: [.post(post)], nextKey: nil), list: "timeline", viewer: bob, epoch: 0,
                    store: store)
            }
            #expect(rendered.holds(posts[0], new.version, epoch: 0) && !rendered.holds(posts[0], old.version, epoch: 0))
            // A name changed since (a later epoch): nothing rendered before is held for reads made after it, and a
            // read that began before cannot put its render over one made after.
            #expect(!rendered.holds(posts[0], new.version, epoch: 1))
            for epoch: UInt64 in [1, 0] {
                _ = try await rendered.page(
                    PageResult(items: [.post(new)], nextKey: nil), list: "timeline", viewer: bob, epoch: epoch,
                    store: store)
            }
            #expect(rendered.holds(posts[0], new.version, epoch: 1) && !rendered.holds(posts[0], new.version, epoch: 0))
        }
    }

    func version(of item: ListedPost) -> Int64 {
        switch item {
        case .post(let post): post.version
        case .known(_, let version, _): version
        }
    }
}

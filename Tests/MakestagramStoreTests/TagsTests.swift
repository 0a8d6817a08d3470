import Foundation
import MakestagramAPI
import MakestagramStore
import Testing

/// Posts filed under their captions' #hashtags, on every store.
@Suite struct TagsTests {
    func withStore(_ factory: StoreFactory, _ body: (any Store) async throws -> Void) async throws {
        try await factory.with { made in try await body(made.store) }
    }

    func all(_ store: any Store, _ tag: String, viewer: Int64) async throws -> [Int64] {
        var ids: [Int64] = []
        var position = PageRequest.Position.start
        while true {
            let page = try await store.posts(tag: tag, viewer: viewer, page: PageRequest(position: position, limit: 2))
            ids += page.items.map(\.id)
            guard let next = page.nextKey else { return ids }
            position = .after(next)
        }
    }

    @Test(arguments: StoreFactory.all)
    func postsAreFiledByTheirTagsAndFollowEditsAndDeletions(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            let ann = try await store.user("ann")
            let ben = try await store.user("ben")
            let first = try await store.photoPost(by: ann, caption: "Dawn #Golden_Hour #sea")
            let second = try await store.photoPost(by: ben, caption: "#golden_hour again, not#this and &#38;")
            let third = try await store.photoPost(by: ann, caption: "#GOLDEN_HOUR #été")
            _ = try await store.photoPost(by: ben, caption: "no tags at all")
            #expect(try await all(store, "golden_hour", viewer: ben) == [third, second, first])
            #expect(try await all(store, "Golden_Hour", viewer: ben) == [third, second, first], "any letter case")
            #expect(try await all(store, "été", viewer: ann) == [third])
            #expect(try await all(store, "this", viewer: ann).isEmpty)
            #expect(try await all(store, "38", viewer: ann).isEmpty)

            _ = try await store.editCaption(postID: second, viewer: ben, caption: "now #sea only")
            #expect(try await all(store, "golden_hour", viewer: ben) == [third, first])
            #expect(try await all(store, "sea", viewer: ben) == [second, first])
            _ = try await store.deletePost(id: first, viewer: ann)
            #expect(try await all(store, "sea", viewer: ben) == [second])
            let page = try await store.posts(tag: "sea", viewer: ben, page: PageRequest(limit: 20))
            #expect(page.items.first?.caption == "now #sea only" && page.items.first?.author.username == "ben")
        }
    }
}

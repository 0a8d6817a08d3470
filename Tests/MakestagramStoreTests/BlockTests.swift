import Foundation
import MakestagramAPI
import MakestagramCore
import MakestagramStore
import Testing

/// Blocks on every store: a block ends the follows both ways and takes back the blocked user's likes and comments on
/// the blocker's posts (counts exact, each taken back as its own change); from then on neither sees the other
/// (profile, posts, tag pages, likers, comments and their previews, search, suggestions, activity) nor reaches the
/// other (follow, like, comment, report); an unblock restores nothing.
@Suite struct BlockTests {
    @Test(arguments: StoreFactory.all)
    func aBlockHidesBothSidesAndTakesBackWhatTheBlockedDid(factory: StoreFactory) async throws {
        let sink = RecordingSink()
        try await factory.with(sink) { made in
            let store = made.store
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let carol = try await store.user("carol")
            _ = try await store.setFollow(viewer: alice, username: "bob", following: true)
            _ = try await store.setFollow(viewer: bob, username: "alice", following: true)
            _ = try await store.setFollow(viewer: carol, username: "alice", following: true)
            let mine = try await store.photoPost(by: alice, caption: "mine #sunset")
            let bobs = try await store.photoPost(by: bob, caption: "bob's #sunset")
            let carols = try await store.photoPost(by: carol, caption: "carol's")
            _ = try await store.setLike(postID: mine, viewer: bob, liked: true)
            _ = try await store.setLike(postID: mine, viewer: carol, liked: true)
            _ = try await store.addComment(postID: mine, author: bob, text: "Nice @alice")
            _ = try await store.addComment(postID: mine, author: carol, text: "Lovely")
            // What each does on a third person's post stays there, but out of the other's sight.
            _ = try await store.setLike(postID: carols, viewer: bob, liked: true)
            _ = try await store.addComment(postID: carols, author: bob, text: "bob was here")
            _ = try await store.setLike(postID: carols, viewer: alice, liked: true)
            try await made.settle()
            #expect(try await store.unreadActivityCount(userID: alice) > 0)
            _ = sink.take()

            #expect(try await store.setBlock(viewer: alice, username: "bob", blocking: true))
            #expect(try await store.setBlock(viewer: alice, username: "bob", blocking: true), "idempotent")
            try await made.settle()
            let events = sink.take()
            #expect(events.contains(.blockChanged(blocker: alice, blocked: bob, blocking: true)))
            #expect(events.contains(.followChanged(follower: alice, followee: bob, following: false)))
            #expect(events.contains(.followChanged(follower: bob, followee: alice, following: false)))
            #expect(
                events.contains { if case .likeChanged(let c) = $0 { c.postID == mine && !c.liked } else { false } })
            #expect(events.contains { if case .commentDeleted(_, mine, 1, _, _) = $0 { true } else { false } })
            #expect(events.count { if case .blockChanged = $0 { true } else { false } } == 1, "idempotent")

            // Counts exact: the follows both ways, bob's like and comment on her post.
            let profile = try #require(try await store.profile(username: "bob", viewer: alice))
            #expect(profile.viewerBlocks == true && !profile.viewerFollows)
            #expect(profile.followerCount == 0 && profile.followingCount == 0)
            let post = try #require(try await store.post(id: mine, viewer: alice))
            #expect(post.likeCount == 1 && post.likers == ["carol"])
            #expect(post.commentCount == 1 && post.recentComments.map(\.author.username) == ["carol"])
            #expect(try await store.profile(username: "alice", viewer: alice)?.followerCount == 1)

            // Bob sees nothing of alice: no profile, no posts, nothing to like, comment on, follow or report.
            #expect(try await store.profile(username: "alice", viewer: bob) == nil)
            #expect(try await store.profile(id: alice, viewer: bob) == nil)
            #expect(try await store.post(id: mine, viewer: bob) == nil)
            #expect(try await store.posts(ids: [mine, carols], viewer: bob).map(\.id) == [carols])
            #expect(try await store.posts(username: "alice", viewer: bob, page: PageRequest(limit: 5)) == nil)
            #expect(
                try await store.posts(tag: "sunset", viewer: bob, page: PageRequest(limit: 5)).items.map(\.id) == [bobs]
            )
            #expect(try await store.likers(postID: mine, viewer: bob, page: PageRequest(limit: 5)) == nil)
            #expect(try await store.comments(postID: mine, viewer: bob, page: PageRequest(limit: 5)) == nil)
            await #expect(throws: StoreError.notFound("post")) {
                _ = try await store.setLike(postID: mine, viewer: bob, liked: true)
            }
            await #expect(throws: StoreError.notFound("post")) {
                _ = try await store.addComment(postID: mine, author: bob, text: "hello?")
            }
            await #expect(throws: StoreError.notFound("post")) {
                try await store.report(postID: mine, reporter: bob, reason: "spam")
            }
            await #expect(throws: StoreError.notFound("user")) {
                _ = try await store.setFollow(viewer: bob, username: "alice", following: true)
            }
            #expect(try await store.searchUsers(query: "alice", viewer: bob, limit: 5).isEmpty)
            #expect(!(try await store.suggestedUsers(viewer: bob, related: nil, limit: 10).map(\.id).contains(alice)))

            // Alice sees bob's profile (to unblock him) but none of his posts, likes or comments anywhere.
            #expect(try await store.posts(username: "bob", viewer: alice, page: PageRequest(limit: 5))?.items == [])
            #expect(try await store.post(id: bobs, viewer: alice) == nil)
            let third = try #require(try await store.post(id: carols, viewer: alice))
            #expect(third.likeCount == 2 && third.likers == ["alice"], "the count stays, his name goes")
            #expect(third.recentComments.isEmpty && third.commentCount == 1)
            #expect(
                try await store.likers(postID: carols, viewer: alice, page: PageRequest(limit: 5))?.items.map(
                    \.username) == ["alice"])
            #expect(
                try await store.comments(postID: carols, viewer: alice, page: PageRequest(limit: 5))?.items.isEmpty
                    == true)
            #expect(
                try await store.likers(postID: carols, viewer: carol, page: PageRequest(limit: 5))?.items.count == 2,
                "others see both")
            #expect(try await store.searchUsers(query: "bob", viewer: alice, limit: 5).isEmpty)
            await #expect(throws: StoreError.youBlockThem) {
                _ = try await store.setFollow(viewer: alice, username: "bob", following: true)
            }
            #expect(try await store.allTimeline(alice, pageSize: 5) == [mine])
            #expect(try await store.allTimeline(bob, pageSize: 5) == [bobs])
            // Neither hears of the other any more, and what was heard is withdrawn.
            let heard = try await store.activity(userID: alice, page: PageRequest(limit: 10)).items
            #expect(!heard.flatMap(\.actors).map(\.username).contains("bob"))
            _ = try await store.addComment(postID: carols, author: bob, text: "hey @alice")
            try await made.settle()
            let after = try await store.activity(userID: alice, page: PageRequest(limit: 10)).items
            #expect(!after.flatMap(\.actors).map(\.username).contains("bob"), "his mention of her is not heard")

            #expect(try await store.blocks(viewer: alice, page: PageRequest(limit: 5)).items.map(\.username) == ["bob"])
            #expect(try await store.dataExport(userID: alice)?.blocked == ["bob"], "the export holds whom she blocks")
            let relations = try await store.blockRelations(viewer: alice, among: [bob, carol])
            #expect(relations.blocking == [bob] && relations.blockedBy.isEmpty)
            let theirs = try await store.blockRelations(viewer: bob, among: [alice, carol])
            #expect(theirs.blocking.isEmpty && theirs.blockedBy == [alice])
            #expect(try await store.blockPartners(of: bob).ids == [alice: "alice"])
            await #expect(throws: StoreError.cannotBlockSelf) {
                _ = try await store.setBlock(viewer: alice, username: "alice", blocking: true)
            }
            await #expect(throws: StoreError.notFound("user")) {
                _ = try await store.setBlock(viewer: alice, username: "nobody", blocking: true)
            }

            // An unblock restores nothing, but each may see and follow the other again.
            #expect(try await store.setBlock(viewer: alice, username: "bob", blocking: false) == false)
            try await made.settle()
            #expect(try await store.blockPartners(of: bob).isEmpty, "every cache learns of the unblock")
            #expect(try await store.profile(username: "alice", viewer: bob)?.followerCount == 1)
            #expect(try await store.post(id: mine, viewer: bob)?.likeCount == 1)
            #expect(try await store.post(id: carols, viewer: alice)?.likers == ["alice", "bob"])
            _ = try await store.setFollow(viewer: bob, username: "alice", following: true)
            #expect(try await store.blocks(viewer: alice, page: PageRequest(limit: 5)).items.isEmpty)
        }
    }
}

import Foundation
import MakestagramAPI
import MakestagramCore
import MakestagramStore
import Testing

/// Mutes on every store: a muted user's posts leave the muter's home timeline (old and new), their activity leaves
/// the muter's list and adds no more, an unmute brings both back (the activity as read), and nothing else changes:
/// the follow, counts, the muted user's own view.
@Suite struct MuteTests {
    @Test(arguments: StoreFactory.all)
    func aMuteTakesPostsAndActivityAwayAndAnUnmuteBringsThemBack(factory: StoreFactory) async throws {
        let sink = RecordingSink()
        try await factory.with(sink) { made in
            let store = made.store
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let carol = try await store.user("carol")
            for name in ["bob", "carol"] {
                _ = try await store.setFollow(viewer: alice, username: name, following: true)
            }
            _ = try await store.setFollow(viewer: bob, username: "alice", following: true)
            let bobs = try await store.photoPost(by: bob, caption: "bob's")
            let carols = try await store.photoPost(by: carol, caption: "carol's")
            let mine = try await store.photoPost(by: alice, caption: "mine")
            _ = try await store.setLike(postID: mine, viewer: bob, liked: true)
            _ = try await store.addComment(postID: mine, author: bob, text: "Nice @alice")
            _ = try await store.setLike(postID: mine, viewer: carol, liked: true)
            try await made.settle()
            let timeline = { try await store.allTimeline(alice, pageSize: 2) }
            #expect(try await timeline() == [mine, carols, bobs])
            let unread = try await store.unreadActivityCount(userID: alice)
            #expect(unread == 4, "bob's like, comment and follow, and carol's like")
            _ = sink.take()

            #expect(try await store.setMute(viewer: alice, username: "bob", muting: true))
            #expect(try await store.setMute(viewer: alice, username: "bob", muting: true), "idempotent")
            try await made.settle()
            #expect(
                sink.take().filter { if case .muteChanged = $0 { true } else { false } } == [
                    .muteChanged(muter: alice, muted: bob, muting: true)
                ])
            #expect(try await timeline() == [mine, carols], "bob's posts leave alice's feed")
            let groups = try await store.activity(userID: alice, page: PageRequest(limit: 10)).items
            #expect(groups.flatMap(\.actors).map(\.username) == ["carol"], "and his activity her list")
            #expect(try await store.unreadActivityCount(userID: alice) == 1)
            // While muted, what bob does adds nothing, and his new posts stay out.
            let newer = try await store.photoPost(by: bob, caption: "newer")
            _ = try await store.addComment(postID: mine, author: bob, text: "Hello?")
            try await made.settle()
            #expect(try await timeline() == [mine, carols])
            #expect(try await store.unreadActivityCount(userID: alice) == 1)
            // Nothing else changes: she still follows him, he sees her and his posts as before.
            let profile = try #require(try await store.profile(username: "bob", viewer: alice))
            #expect(profile.viewerFollows && profile.viewerMutes == true)
            #expect(try await store.profile(username: "alice", viewer: bob)?.viewerMutes == false)
            #expect(try await store.profile(username: "alice", viewer: alice)?.viewerMutes == nil)
            #expect(try await store.allTimeline(bob, pageSize: 5).contains(mine))
            #expect(try await store.mutes(viewer: alice, page: PageRequest(limit: 5)).items.map(\.username) == ["bob"])
            #expect(try await store.muted(by: alice, among: [bob, carol]) == [bob])
            #expect(try await store.dataExport(userID: alice)?.muted == ["bob"], "the export holds whom she mutes")
            await #expect(throws: StoreError.cannotMuteSelf) {
                _ = try await store.setMute(viewer: alice, username: "alice", muting: true)
            }
            await #expect(throws: StoreError.notFound("user")) {
                _ = try await store.setMute(viewer: alice, username: "nobody", muting: true)
            }

            #expect(try await store.setMute(viewer: alice, username: "bob", muting: false) == false)
            try await made.settle()
            #expect(try await timeline() == [newer, mine, carols, bobs], "his posts come back, the newer one too")
            let back = try await store.activity(userID: alice, page: PageRequest(limit: 10)).items
            #expect(Set(back.flatMap(\.actors).map(\.username)) == ["bob", "carol"], "his activity comes back")
            #expect(try await store.unreadActivityCount(userID: alice) == 1, "as read: it is old news")
            #expect(try await store.mutes(viewer: alice, page: PageRequest(limit: 5)).items.isEmpty)

            // A mute of someone not followed keeps them out once followed, until unmuted.
            let dave = try await store.user("dave")
            _ = try await store.photoPost(by: dave, caption: "dave's")
            _ = try await store.setMute(viewer: alice, username: "dave", muting: true)
            _ = try await store.setFollow(viewer: alice, username: "dave", following: true)
            try await made.settle()
            #expect(try await timeline() == [newer, mine, carols, bobs])
        }
    }
}

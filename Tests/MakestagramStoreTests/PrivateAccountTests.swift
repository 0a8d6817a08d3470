import Foundation
import MakestagramAPI
import MakestagramCore
import MakestagramStore
import Testing

/// Private accounts on every store: a follow is a request the owner approves or declines (in their activity until
/// answered), counts count accepted follows only, posts (with their likes and comments) are read only by the owner
/// and accepted followers, switching to public accepts every request, and switching to private keeps the followers.
@Suite struct PrivateAccountTests {
    @Test(arguments: StoreFactory.all)
    func aPrivateAccountIsReadOnlyByTheFollowersItAccepted(factory: StoreFactory) async throws {
        let sink = RecordingSink()
        try await factory.with(sink) { made in
            let store = made.store
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let carol = try await store.user("carol")
            let dave = try await store.user("dave")
            _ = try await store.setFollow(viewer: carol, username: "alice", following: true)
            let before = try await store.photoPost(by: alice, caption: "before #quiet")
            let profile = try await store.setPrivate(userID: alice, isPrivate: true)
            #expect(profile.isPrivate && profile.followerCount == 1, "going private keeps the followers")
            let mine = try await store.photoPost(by: alice, caption: "mine #quiet")

            // Bob's follow is a request: nothing counts, nothing reads, until she answers.
            let asked = try await store.setFollow(viewer: bob, username: "alice", following: true)
            #expect(asked == FollowState(followerCount: 1, viewerFollows: false, viewerRequested: true))
            #expect(try await store.setFollow(viewer: bob, username: "alice", following: true).viewerRequested)
            let seen = try #require(try await store.profile(username: "alice", viewer: bob))
            #expect(seen.isPrivate && seen.viewerRequested == true && !seen.viewerFollows && seen.followerCount == 1)
            #expect(try await store.post(id: mine, viewer: bob) == nil)
            #expect(try await store.posts(ids: [mine, before], viewer: bob).isEmpty)
            #expect(try await store.posts(username: "alice", viewer: bob, page: PageRequest(limit: 5))?.items == [])
            // Not even as posts a cache holds (a list answered from rendered JSON reads no post).
            let listed = try await store.posts(
                username: "alice", viewer: bob, page: PageRequest(limit: 5), known: { _, _ in true })
            #expect(listed?.items == [])
            #expect(try await store.posts(tag: "quiet", viewer: bob, page: PageRequest(limit: 5)).items.isEmpty)
            #expect(try await store.likers(postID: mine, viewer: bob, page: PageRequest(limit: 5)) == nil)
            #expect(try await store.comments(postID: mine, viewer: bob, page: PageRequest(limit: 5)) == nil)
            await #expect(throws: StoreError.notFound("post")) {
                _ = try await store.setLike(postID: mine, viewer: bob, liked: true)
            }
            await #expect(throws: StoreError.notFound("post")) {
                _ = try await store.addComment(postID: mine, author: bob, text: "let me in")
            }
            #expect(try await store.allTimeline(bob, pageSize: 5).isEmpty)
            // Carol, an accepted follower, and alice herself read everything.
            let read = try #require(try await store.post(id: mine, viewer: carol))
            // Its photos are at signed URLs, the only ones the media routes serve its files at.
            #expect(read.image.full.url.contains("?s=") && read.image.thumb.url.contains("?s="))
            let file = MediaPath.fileName(ofURL: String(read.image.full.url.prefix { $0 != "?" }))
            #expect(try await store.privateUsersMedia().contains(file))
            #expect(!store.privateUsers.isEmpty)
            let token = String(read.image.full.url.split(separator: "=").last ?? "")
            #expect(store.mediaSigning.verify(file: file, token: token))
            #expect(try await store.allTimeline(carol, pageSize: 5) == [mine, before])
            #expect(try await store.posts(tag: "quiet", viewer: alice, page: PageRequest(limit: 5)).items.count == 2)
            _ = try await store.setLike(postID: mine, viewer: carol, liked: true)

            // The request waits in her list and her activity.
            try await made.settle()
            #expect(
                try await store.followRequests(viewer: alice, page: PageRequest(limit: 5)).items.map(\.username) == [
                    "bob"
                ])
            let groups = try await store.activity(userID: alice, page: PageRequest(limit: 10)).items
            #expect(groups.first { $0.kind == .followRequest }?.actors.map(\.username) == ["bob"])

            // Dave asks and withdraws; she declines nobody twice.
            _ = try await store.setFollow(viewer: dave, username: "alice", following: true)
            #expect(
                try await store.setFollow(viewer: dave, username: "alice", following: false).viewerRequested == false)
            #expect(
                try await store.followRequests(viewer: alice, page: PageRequest(limit: 5)).items.map(\.username) == [
                    "bob"
                ])
            await #expect(throws: StoreError.notFound("request")) {
                try await store.answerFollowRequest(viewer: alice, username: "dave", approve: true)
            }

            // Approved: bob follows, counts, reads; the request leaves her activity, his follow enters it.
            try await made.settle()
            _ = sink.take()
            try await store.answerFollowRequest(viewer: alice, username: "bob", approve: true)
            try await made.settle()
            let events = sink.take()
            #expect(events.contains(.followRequestChanged(requester: bob, target: alice, pending: false)))
            #expect(events.contains(.followChanged(follower: bob, followee: alice, following: true)))
            #expect(try await store.profile(username: "alice", viewer: bob)?.followerCount == 2)
            #expect(try await store.post(id: mine, viewer: bob)?.likers == ["carol"])
            #expect(try await store.allTimeline(bob, pageSize: 5) == [mine, before])
            let after = try await store.activity(userID: alice, page: PageRequest(limit: 10)).items
            #expect(!after.contains { $0.kind == .followRequest })
            #expect(after.contains { $0.kind == .follow && $0.actors.map(\.username).contains("bob") })

            // Declined: nothing follows, and dave may ask again.
            _ = try await store.setFollow(viewer: dave, username: "alice", following: true)
            try await store.answerFollowRequest(viewer: alice, username: "dave", approve: false)
            #expect(try await store.profile(username: "alice", viewer: dave)?.viewerRequested == false)
            #expect(try await store.post(id: mine, viewer: dave) == nil)

            // Public again: every pending request is accepted.
            _ = try await store.setFollow(viewer: dave, username: "alice", following: true)
            try await made.settle()
            _ = sink.take()
            let open = try await store.setPrivate(userID: alice, isPrivate: false)
            #expect(!open.isPrivate && open.followerCount == 3)
            #expect(try await store.post(id: mine, viewer: dave)?.image.full.url.contains("?") == false)
            try await made.settle()
            #expect(sink.take().contains(.privacyChanged(user: alice, isPrivate: false)))
            #expect(try await store.profile(username: "alice", viewer: dave)?.viewerFollows == true)
            #expect(try await store.followRequests(viewer: alice, page: PageRequest(limit: 5)).items.isEmpty)
            // A public account is followed at once.
            let eve = try await store.user("eve")
            #expect(try await store.setFollow(viewer: eve, username: "alice", following: true).viewerFollows)
        }
    }
}

import Foundation
import Incremental
import MakestagramAPI
import MakestagramKit
import TestFixtures
import Testing

@Suite struct LiveTests {
    @Test @MainActor func oneClientsLikeReachesTheOthersModelThroughEvents() async throws {
        try await KitServer.run { server in
            let alice = try await server.signedUp("alice")
            let bob = try await server.signedUp("bob")
            _ = try await bob.client.follow("alice")
            let shared = try await alice.share("chelsea.jpg", caption: "Cat")
            try await alice.homeFeed.refresh()
            let alicesPost = try #require(alice.homeFeed.posts.elements.first { $0.id == shared.id })
            var counts: [Int?] = []
            let watching = alicesPost.likeCount.observe { counts.append($0) }
            alice.live.start()
            try await eventually("alice's stream is live") { alice.live.status.value == .live }

            try await bob.homeFeed.refresh()
            let bobsPost = try #require(bob.homeFeed.posts.elements.first)
            try await bobsPost.toggleLike()
            try await eventually("bob's like reaches alice") { alicesPost.likeCount.value == 1 }
            #expect(alicesPost.likers.value == ["bob"] && !alicesPost.viewerHasLiked.value)
            #expect(counts == [0, 1])

            try await bobsPost.addComment("Purr")
            try await eventually("bob's comment reaches alice") { alicesPost.commentCount.value == 1 }
            #expect(alicesPost.comments.value.map(\.text) == ["Purr"])

            // New posts from whom bob follows wait behind the pill.
            bob.live.start()
            try await eventually("bob's stream is live") { bob.live.status.value == .live }

            // The author edits the caption; bob's open post changes without a reload.
            var captions: [String] = []
            let watchingCaption = bobsPost.caption.observe { captions.append($0) }
            try await alicesPost.editCaption("Cat, asleep")
            #expect(alicesPost.caption.value == "Cat, asleep" && alicesPost.editedAt.value != nil)
            try await eventually("the edit reaches bob") { bobsPost.caption.value == "Cat, asleep" }
            #expect(bobsPost.editedAt.value != nil && captions == ["Cat", "Cat, asleep"])
            await #expect(throws: MakestagramError.self) { try await bobsPost.editCaption("bob's now") }
            _ = watchingCaption

            // A new name reaches the author line and the comments of the open post, without changing its version.
            let version = bobsPost.version
            _ = try await alice.client.updateProfile(displayName: "Alice Archer")
            try await eventually("the new name reaches bob") { bobsPost.author.value.displayName == "Alice Archer" }
            #expect(bobsPost.version == version)
            let newer = try await alice.share("hubble.jpg", caption: "Stars")
            try await eventually("the new post is announced to bob") { bob.homeFeed.newPostCount.value == 1 }
            bob.homeFeed.showNewPosts()
            #expect(bob.homeFeed.posts.elements.first?.id == newer.id && bob.homeFeed.newPostCount.value == 0)

            // A deletion reaches every screen.
            try await alice.posts.delete(alicesPost)
            try await eventually("the deletion reaches bob") {
                !bob.homeFeed.posts.elements.contains { $0.id == shared.id }
            }
            #expect(bobsPost.isDeleted.value)
            _ = watching
            alice.live.stop()
            bob.live.stop()
        }
    }

    @Test @MainActor func staleAndDuplicateEventsAreDropped() async throws {
        try await KitServer.run { server in
            let alice = try await server.signedUp("alice")
            let shared = try await alice.share("rocket.jpg")
            let model = alice.posts.model(for: try await alice.client.post(shared.id))
            let liked = try await alice.client.like(shared.id)
            let actor = try #require(alice.user.value)
            alice.posts.apply(
                .liked(
                    LiveLike(
                        postId: shared.id, version: liked.version, actor: actor, likeCount: 1, likers: [actor.username],
                        viewerHasLiked: true)))
            #expect(model.likeCount.value == 1 && model.version == liked.version)
            // An older state (from before the like) arrives late: it changes nothing.
            alice.posts.apply(
                .unliked(
                    LiveLike(
                        postId: shared.id, version: liked.version - 1, actor: actor, likeCount: 0, likers: [],
                        viewerHasLiked: false)))
            #expect(model.likeCount.value == 1 && model.viewerHasLiked.value)
            // The same event twice counts once.
            let comment = Comment(id: 9, postId: shared.id, author: actor, text: "hi", createdAt: Date())
            let event = LiveServerMessage.commentCreated(
                LiveCommentCreated(postId: shared.id, version: liked.version + 1, comment: comment, commentCount: 1))
            alice.posts.apply(event)
            alice.posts.apply(event)
            #expect(model.comments.value.count == 1 && model.commentCount.value == 1)
        }
    }

    @Test @MainActor func theStreamReconnectsAndResubscribesAfterADrop() async throws {
        try await KitServer.run { server in
            let alice = try await server.signedUp("alice")
            let bob = try await server.signedUp("bob")
            let shared = try await alice.share("chelsea.jpg")
            let model = bob.posts.model(for: try await bob.client.post(shared.id))
            bob.live.start()
            try await eventually("live") { bob.live.status.value == .live }
            var statuses: [LiveUpdates.Status] = []
            let watching = bob.live.status.observe { statuses.append($0) }
            _ = try await alice.client.like(shared.id)
            try await eventually("the like arrives") { model.likeCount.value == 1 }
            bob.live.stop()
            _ = try await alice.client.unlike(shared.id)
            bob.live.start()
            try await eventually("the snapshot after reconnecting brings the missed unlike") {
                bob.live.status.value == .live && model.likeCount.value == 0
            }
            #expect(statuses.contains(.stopped) && statuses.last == .live)
            _ = watching

            // Logging out elsewhere ends the stream for good, and the session here.
            try await bob.client.logOut()
            try await eventually("the session ends") { bob.live.status.value == .sessionEnded }
            #expect(!bob.isLoggedIn && bob.user.value == nil && model.isDeleted.value)
        }
    }
}

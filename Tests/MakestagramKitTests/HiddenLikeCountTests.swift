import Foundation
import Incremental
import MakestagramAPI
import MakestagramKit
import TestFixtures
import Testing

@Suite struct HiddenLikeCountTests {
    @Test @MainActor func aHiddenCountLeavesOthersModelsLiveAndNeverComesBackWithALike() async throws {
        try await KitServer.run { server in
            let alice = try await server.signedUp("alice")
            let bob = try await server.signedUp("bob")
            let carol = try await server.signedUp("carol")
            _ = try await bob.client.follow("alice")
            let shared = try await alice.share("chelsea.jpg", caption: "Cat")
            try await bob.homeFeed.refresh()
            let bobsPost = try #require(bob.homeFeed.posts.elements.first { $0.id == shared.id })
            #expect(bobsPost.likeCount.value == 0 && !bobsPost.likeCountHidden.value)
            bob.live.start()
            try await eventually("bob's stream is live") { bob.live.status.value == .live }
            try await bobsPost.toggleLike()
            #expect(bobsPost.likeCount.value == 1)

            let alicesPost = alice.posts.model(for: try await alice.client.post(shared.id))
            try await alicesPost.setLikeCountHidden(true)
            #expect(alicesPost.likeCountHidden.value && alicesPost.likeCount.value == 1)
            try await eventually("the count leaves bob's model") {
                bobsPost.likeCountHidden.value && bobsPost.likeCount.value == nil
            }
            #expect(bobsPost.likedBy.value == "Liked by bob and others")

            _ = try await carol.client.like(shared.id)
            try await eventually("carol's like arrives without a count") {
                bobsPost.likers.value == ["carol", "bob"]
            }
            #expect(bobsPost.likeCount.value == nil && bobsPost.likedBy.value == "Liked by carol and others")
            try await bobsPost.toggleLike()
            #expect(bobsPost.likeCount.value == nil && !bobsPost.viewerHasLiked.value)
            try await eventually("carol's like stays") { bobsPost.likedBy.value == "Liked by carol and others" }
            await #expect(throws: MakestagramError.self) { try await bobsPost.setLikeCountHidden(false) }

            try await alicesPost.setLikeCountHidden(false)
            try await eventually("shown again") { bobsPost.likeCount.value == 1 && !bobsPost.likeCountHidden.value }
            bob.live.stop()
        }
    }
}

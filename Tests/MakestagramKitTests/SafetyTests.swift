import Foundation
import Incremental
import MakestagramAPI
import MakestagramKit
import TestFixtures
import Testing

/// Blocking through the SDK: the blocked person's posts leave the blocker's bound feed at once, and the blocker's
/// posts leave the blocked person's bound feed as soon as the server tells their stream to load again.
@Suite struct KitBlockTests {
    @Test @MainActor func blockingTakesEachOutOfTheOthersBoundFeed() async throws {
        try await KitServer.run { server in
            let alice = try await server.signedUp("alice")
            let bob = try await server.signedUp("bob")
            _ = try await alice.client.follow("bob")
            _ = try await bob.client.follow("alice")
            let bobs = try await bob.share("rocket.jpg", caption: "Bob's")
            let alices = try await alice.share("chelsea.jpg", caption: "Alice's")
            try await alice.homeFeed.refresh()
            try await bob.homeFeed.refresh()
            #expect(alice.homeFeed.posts.elements.map(\.id) == [alices.id, bobs.id])
            #expect(bob.homeFeed.posts.elements.map(\.id) == [alices.id, bobs.id])
            bob.live.start()
            try await eventually("bob's stream is live") { bob.live.status.value == .live }

            #expect(try await alice.block("bob").viewerBlocks)
            #expect(alice.homeFeed.posts.elements.map(\.id) == [alices.id], "his post leaves her bound feed at once")
            try await eventually("her post leaves his bound feed, live") {
                bob.homeFeed.posts.elements.map(\.id) == [bobs.id]
            }
            #expect(try await alice.client.blockedUsers().items.map(\.username) == ["bob"])
            await #expect(throws: MakestagramError.self) { _ = try await bob.client.profile("alice") }
            bob.live.stop()

            #expect(try await alice.unblock("bob").viewerBlocks == false)
            #expect(try await alice.client.blockedUsers().items.isEmpty)
            #expect(try await bob.client.profile("alice").viewerFollows == false, "nothing comes back by itself")
        }
    }
}

/// A private account through the SDK: a follow is a request its owner lists and approves; the profile says so.
@Suite struct KitPrivateAccountTests {
    @Test @MainActor func aFollowOfAPrivateAccountWaitsForItsOwner() async throws {
        try await KitServer.run { server in
            let alice = try await server.signedUp("alice")
            let bob = try await server.signedUp("bob")
            #expect(try await alice.client.updateProfile(isPrivate: true).isPrivate)
            let asked = try await bob.client.follow("alice")
            #expect(asked.viewerRequested && !asked.viewerFollows)
            #expect(try await bob.client.profile("alice").viewerRequested == true)
            #expect(try await alice.client.followRequests().items.map(\.username) == ["bob"])
            try await alice.client.approveFollowRequest("bob")
            #expect(try await bob.client.profile("alice").viewerFollows)
            await #expect(throws: MakestagramError.self) { try await alice.client.declineFollowRequest("bob") }
            // Removed from her followers: he no longer follows, and may ask again.
            try await alice.client.removeFollower("bob")
            #expect(try await bob.client.profile("alice").viewerFollows == false)
            #expect(try await alice.client.profile("alice").followerCount == 0)
            #expect(try await bob.client.follow("alice").viewerRequested)
        }
    }
}

import Foundation
import Incremental
import MakestagramAPI
import MakestagramKit
import TestFixtures
import Testing

/// Muting through the SDK: the muted person's posts leave the home feed a screen is bound to at once, and come back
/// on unmute; the follow stays.
@Suite struct KitMuteTests {
    @Test @MainActor func mutingTakesPostsOutOfTheBoundFeedAndUnmutingBringsThemBack() async throws {
        try await KitServer.run { server in
            let alice = try await server.signedUp("alice")
            let bob = try await server.signedUp("bob")
            let carol = try await server.signedUp("carol")
            _ = try await alice.client.follow("bob")
            _ = try await alice.client.follow("carol")
            let bobs = try await bob.share("rocket.jpg", caption: "Bob's")
            let carols = try await carol.share("chelsea.jpg", caption: "Carol's")
            try await alice.homeFeed.refresh()
            var heard = 0
            let bag = DisposeBag()
            alice.homeFeed.posts.observe { heard += $0.count }.disposed(by: bag)
            let shown = { alice.homeFeed.posts.elements.map(\.id) }
            #expect(shown() == [carols.id, bobs.id])

            heard = 0
            #expect(try await alice.mute("bob").viewerMutes)
            #expect(shown() == [carols.id] && heard > 0, "bob's post leaves the bound feed at once")
            try await alice.homeFeed.refresh()
            #expect(alice.homeFeed.posts.elements.map(\.id) == [carols.id], "and the server's")
            #expect(try await alice.client.profile("bob").viewerFollows, "the follow stays")
            #expect(try await alice.client.mutedUsers().items.map(\.username) == ["bob"])

            #expect(try await alice.unmute("bob").viewerMutes == false)
            #expect(shown() == [carols.id, bobs.id])
            bag.dispose()
        }
    }
}

import Foundation
import Incremental
import MakestagramAPI
import MakestagramKit
import TestFixtures
import Testing

/// A table cell standing in for a UIKit one: it owns the box of its bindings and is reused for post after post.
@MainActor final class PostCellStandIn {
    var heartIsFilled = false
    var likesLine: String?
    var texts: [String?] = []
    private(set) lazy var box = Box(owner: self)

    func bind(to post: PostModel) {
        box.bind(\.heartIsFilled, to: post.viewerHasLiked)
        box.bind(\.likesLineShown, to: post.likedBy)
    }

    var likesLineShown: String? {
        get { likesLine }
        set {
            likesLine = newValue
            texts.append(newValue)
        }
    }
}

@Suite struct BoxBindingTests {
    @Test @MainActor func aReusedCellFollowsOnlyThePostItShows() async throws {
        try await KitServer.run { server in
            let alice = try await server.signedUp("alice")
            let bob = try await server.signedUp("bob")
            for caption in ["first", "second"] {
                _ = try await alice.share(
                    image: Fixtures.photo("chelsea.jpg"), fileName: "chelsea.jpg", caption: caption, progress: { _ in })
            }
            _ = try await bob.client.follow("alice")
            try await bob.homeFeed.refresh()
            let posts = bob.homeFeed.posts.elements
            let (second, first) = (posts[0], posts[1])

            let cell = PostCellStandIn()
            cell.bind(to: first)
            try await first.toggleLike()
            #expect(cell.heartIsFilled && cell.likesLine == "Liked by bob")
            // Reused for the other post: the first post's changes no longer reach it.
            cell.bind(to: second)
            #expect(!cell.heartIsFilled && cell.likesLine == "")
            try await first.toggleLike()
            #expect(!cell.heartIsFilled && cell.likesLine == "")
            try await second.toggleLike()
            #expect(cell.heartIsFilled && cell.texts == ["", "Liked by bob", "", "Liked by bob"])
        }
    }
}

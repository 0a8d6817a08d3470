import Foundation
import Incremental
import MakestagramAPI
import MakestagramKit
import TestFixtures
import Testing

@Suite struct FeedTests {
    @Test @MainActor func theWholeFlowThroughObservableModels() async throws {
        try await KitServer.run { server in
            let alice = try await server.signedUp("alice")
            let bob = try await server.signedUp("bob")
            let progress = LockedProgress()
            let shared = try await alice.share(
                image: Fixtures.photo("phone-gps-rotated.jpg"), fileName: "phone.jpg", caption: "Morning coffee",
                progress: { progress.record($0) })
            #expect(progress.values.last == 1 && progress.values.count >= 2)
            #expect(shared.caption.value == "Morning coffee" && shared.image.height > shared.image.width)
            #expect(try await bob.client.searchUsers("ali").items.map(\.username) == ["alice"])
            #expect(try await bob.client.suggestedUsers(limit: 5).items.map(\.username).contains("alice"))
            _ = try await bob.client.follow("alice")
            #expect(try await bob.client.searchUsers("ali").items.first?.viewerFollows == true)

            let feed = bob.homeFeed
            try await feed.refresh()
            let post = try #require(feed.posts.elements.first)
            #expect(post.id == shared.id && post.likeCount.value == 0 && !post.viewerHasLiked.value)

            // A view binds to the model: the heart and the "Liked by" line follow it.
            let bag = DisposeBag()
            var hearts: [Bool] = []
            var lines: [String] = []
            post.viewerHasLiked.observe { hearts.append($0) }.disposed(by: bag)
            post.likedBy.observe { lines.append($0) }.disposed(by: bag)
            try await post.toggleLike()
            #expect(hearts == [false, true] && lines == ["", "Liked by bob"])
            #expect(post.likeCount.value == 1 && !post.isLikePending.value)
            #expect(bob.feed(of: "alice").posts.elements.isEmpty)
            try await bob.feed(of: "alice").refresh()
            #expect(bob.feed(of: "alice").posts.elements.first === post, "one model per post, whichever feed shows it")

            let comment = try await post.addComment("Looks strong")
            #expect(post.comments.value.map(\.text) == ["Looks strong"] && post.commentCount.value == 1)
            try await alice.homeFeed.refresh()
            let alicesView = try #require(alice.homeFeed.posts.elements.first)
            #expect(alicesView.likeCount.value == 1 && !alicesView.viewerHasLiked.value)
            #expect(alicesView.likers.value == ["bob"] && alicesView.comments.value == [comment])

            try await post.toggleLike()
            #expect(post.likeCount.value == 0 && hearts == [false, true, false])
            try await post.deleteComment(comment)
            #expect(post.comments.value.isEmpty && post.commentCount.value == 0)
            bag.dispose()
            try await post.toggleLike()
            #expect(hearts.count == 3, "a disposed binding hears nothing more")

            try await alice.posts.delete(alicesView)
            #expect(alice.homeFeed.posts.elements.isEmpty && alicesView.isDeleted.value)
        }
    }

    @Test @MainActor func pagesLoadOlderAndRefreshBringsNewerPosts() async throws {
        try await KitServer.run { server in
            let alice = try await server.signedUp("alice")
            var ids: [Int64] = []
            for number in 0..<5 {
                ids.append(
                    try await alice.client.createPost(image: Fixtures.photo("rocket.jpg"), caption: "\(number)").id)
            }
            let phone = server.app("alice-phone")
            try await phone.logIn(username: "alice", password: "correct horse")
            phone.pageSize = 2
            let feed = phone.homeFeed
            var loading: [Bool] = []
            let watching = feed.isLoadingMore.observe { loading.append($0) }
            try await feed.refresh()
            #expect(feed.posts.elements.map(\.id) == Array(ids.reversed().prefix(2)))
            try await feed.loadMore()
            try await feed.loadMore()
            #expect(feed.posts.elements.map(\.id) == ids.reversed() && !feed.hasMore.value)
            #expect(loading == [false, true, false, true, false])
            try await feed.loadMore()
            #expect(loading.count == 5, "nothing older was left to load")

            var newer: [Int64] = []
            for _ in 0..<3 { newer.append(try await alice.client.createPost(image: Fixtures.photo("hubble.jpg")).id) }
            try await feed.refresh()
            #expect(feed.posts.elements.map(\.id) == newer.reversed() + ids.reversed())
            _ = watching
        }
    }

    @Test @MainActor func aFailedLikeRollsBack() async throws {
        try await KitServer.run { server in
            let transport = SwitchableTransport()
            let alice = try await server.signedUp("alice")
            let bob = try await server.signedUp("bob", transport: transport, cache: false)
            let shared = try await alice.share("chelsea.jpg")
            _ = try await bob.client.follow("alice")
            try await bob.homeFeed.refresh()
            let post = try #require(bob.homeFeed.posts.elements.first)
            var hearts: [Bool] = []
            let watching = post.viewerHasLiked.observe { hearts.append($0) }

            transport.set(.failing(status: 503, pathContaining: "/like"))
            await #expect(throws: MakestagramError.self) { try await post.toggleLike() }
            #expect(hearts == [false, true, false], "shown at once, then rolled back")
            #expect(post.likeCount.value == 0 && !post.isLikePending.value)

            // Without an offline cache, a like that cannot get through is rolled back too.
            transport.set(.offline)
            await #expect(throws: MakestagramError.self) { try await post.toggleLike() }
            #expect(!post.viewerHasLiked.value)

            // A like on a post deleted meanwhile: rolled back, and the post leaves the feed.
            transport.set(.online)
            try await alice.client.deletePost(shared.id)
            do {
                try await post.toggleLike()
                Issue.record("liking a deleted post succeeded")
            } catch let error as MakestagramError {
                #expect(error.status == 404)
            }
            #expect(!post.viewerHasLiked.value && post.isDeleted.value && bob.homeFeed.posts.elements.isEmpty)
            _ = watching
        }
    }

    @Test @MainActor func likesMadeOfflineAreSentOnceWhenBackOnline() async throws {
        try await KitServer.run { server in
            let transport = SwitchableTransport()
            let alice = try await server.signedUp("alice")
            let bob = try await server.signedUp("bob", transport: transport)
            let shared = try await alice.share("astronaut.jpg")
            _ = try await bob.client.follow("alice")
            try await bob.homeFeed.refresh()
            let post = try #require(bob.homeFeed.posts.elements.first)

            transport.set(.offline)
            try await post.toggleLike()  // queued, not thrown
            #expect(post.viewerHasLiked.value && post.likeCount.value == 1 && post.isLikePending.value)
            try await post.toggleLike()
            try await post.toggleLike()  // like, unlike, like: the last wish is what goes out
            #expect(post.viewerHasLiked.value && post.isLikePending.value)

            // The app is closed and opened again, still offline: the wish survives.
            let relaunched = server.app("bob", transport: transport)
            let restored = try #require(relaunched.homeFeed.posts.elements.first)
            #expect(restored.viewerHasLiked.value && restored.isLikePending.value)

            transport.set(.online)
            try await relaunched.homeFeed.refresh()
            try await eventually("the queued like is confirmed") { !restored.isLikePending.value }
            #expect(restored.viewerHasLiked.value && restored.likeCount.value == 1)
            let seen = try await alice.client.post(shared.id)
            #expect(seen.likeCount == 1 && seen.likers == ["bob"])
            #expect(try await alice.client.likers(of: shared.id).items.count == 1, "counted once")
        }
    }

    @Test @MainActor func theFeedAndImagesSeenShowAtLaunchBeforeTheNetworkAnswers() async throws {
        try await KitServer.run { server in
            let alice = try await server.signedUp("alice")
            let shared = try await alice.share("hubble.jpg", caption: "Deep field")
            try await alice.homeFeed.refresh()
            let photo = try await alice.images.data(for: shared.image.thumb)
            #expect(photo.starts(with: [0xFF, 0xD8]))
            // Chosen by screen size: hubble.jpg is 1000 px wide, so its variants are 320, 640 and 1000 px wide.
            let image = shared.image
            #expect(image.variants.map(\.width) == [320, 640, 1000])
            #expect(alice.images.variant(of: image, points: 100, scale: 3).width == 320)
            #expect(alice.images.variant(of: image, points: 300, scale: 2).width == 640)
            #expect(alice.images.variant(of: image, points: 390, scale: 3).width == 1000, "the sharpest there is")
            #expect(alice.images.variant(of: image, points: 300, scale: 2, acceptsWebP: false) == image.full)
            let webp = try await alice.images.data(for: image, points: 150, scale: 2)
            #expect(webp.starts(with: Array("RIFF".utf8)))

            let offline = SwitchableTransport()
            offline.set(.offline)
            let relaunched = server.app("alice", transport: offline)
            let restored = relaunched.homeFeed.posts.elements
            #expect(restored.map(\.id) == [shared.id] && restored.first?.caption.value == "Deep field")
            #expect(try await relaunched.images.data(for: shared.image.thumb) == photo)
            #expect(!relaunched.homeFeed.isFresh.value)
            await #expect(throws: MakestagramError.self) { try await relaunched.homeFeed.refresh() }
            #expect(relaunched.homeFeed.posts.elements.map(\.id) == [shared.id], "a failed refresh keeps what is shown")
            #expect(offline.requests.allSatisfy { !$0.contains("/media/") }, "cached images were not fetched")

            try await relaunched.logOut()
            #expect(server.app("alice").homeFeed.posts.elements.isEmpty, "logging out forgets the cache")
        }
    }
}

/// Upload progress values, recorded from URLSession's delegate thread.
final class LockedProgress: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Double] = []

    func record(_ value: Double) { lock.withLock { recorded.append(value) } }
    var values: [Double] { lock.withLock { recorded } }
}

import Foundation
import HTTPTypes
import HummingbirdTesting
import MakestagramAPI
import ServerTestSupport
import Testing

/// A post's author hides its like count: everyone else sees who liked it but never how many — in lists served
/// from the rendered-post cache, single posts, like answers and live events — while the author still sees theirs.
@Suite struct HiddenLikeCountsTests {
    func hide(_ client: any TestClientProtocol, _ post: Int64, _ hidden: Bool, as user: TestUser) async throws -> Post {
        try await client.call(.patch, "/api/v1/posts/\(post)", as: user, json: EditPostRequest(hideLikeCount: hidden))
    }

    @Test func othersSeeWhoLikedButNotHowMany() async throws {
        try await TestServer.run({ $0.rateLimits = .unlimited }, setup: .live) { client, _ in
            let port = try #require(client.port)
            let alice = try await client.signUp("alice")
            let bob = try await client.signUp("bob")
            let carol = try await client.signUp("carol")
            let _: FollowState = try await client.call(.put, "/api/v1/users/alice/follow", as: bob)
            let post = try await client.post("chelsea.jpg", caption: "Cat", as: alice)
            let _: LikeState = try await client.call(.put, "/api/v1/posts/\(post.id)/like", as: carol)
            // Rendered and kept while the count was shown.
            let before: Page<Post> = try await client.call(.get, "/api/v1/timeline", as: bob)
            #expect(before.items.first?.likeCount == 1 && before.items.first?.likeCountHidden == false)

            let bobsSocket = try await LiveClient.connect(port: port, token: bob.token)
            defer { bobsSocket.close() }
            let alicesSocket = try await LiveClient.connect(port: port, token: alice.token)
            defer { alicesSocket.close() }
            _ = try await bobsSocket.subscribe([post.id])
            _ = try await alicesSocket.subscribe([post.id])

            let hidden = try await hide(client, post.id, true, as: alice)
            #expect(hidden.likeCountHidden && hidden.likeCount == 1 && hidden.version > post.version)
            let visibility = { (message: LiveServerMessage) -> LiveLikeCountVisibility? in
                if case .likeCountVisibility(let event) = message { event } else { nil }
            }
            #expect(visibility(try await bobsSocket.next())?.likeCount == nil)
            #expect(
                visibility(try await alicesSocket.next())
                    == LiveLikeCountVisibility(
                        postId: post.id, version: hidden.version, likeCountHidden: true, likeCount: 1))

            for _ in 0..<2 {  // the second read comes from the rendered-post cache
                let bobs: Page<Post> = try await client.call(.get, "/api/v1/timeline", as: bob)
                #expect(bobs.items.first?.likeCount == nil && bobs.items.first?.likers == ["carol"])
                let alices: Page<Post> = try await client.call(.get, "/api/v1/users/alice/posts", as: alice)
                #expect(alices.items.first?.likeCount == 1 && alices.items.first?.likeCountHidden == true)
                let carols: Page<Post> = try await client.call(.get, "/api/v1/users/alice/posts", as: carol)
                #expect(carols.items.first?.likeCount == nil)
            }
            let single: Post = try await client.call(.get, "/api/v1/posts/\(post.id)", as: bob)
            #expect(single.likeCount == nil && single.likeCountHidden)
            let raw = try await client.send(.get, "/api/v1/posts/\(post.id)", as: bob)
            #expect(!String(buffer: raw.body).contains("likeCount\""), "absent, not null or zero")

            let answer: LikeState = try await client.call(.put, "/api/v1/posts/\(post.id)/like", as: bob)
            #expect(answer.likeCount == nil && answer.viewerHasLiked && answer.likers == ["bob", "carol"])
            guard case .liked(let toBob) = try await bobsSocket.next(),
                case .liked(let toAlice) = try await alicesSocket.next()
            else {
                Issue.record("expected post.liked on both sockets")
                return
            }
            #expect(toBob.likeCount == nil && toBob.viewerHasLiked)
            #expect(toAlice.likeCount == 2 && !toAlice.viewerHasLiked)
            let own: LikeState = try await client.call(.put, "/api/v1/posts/\(post.id)/like", as: alice)
            #expect(own.likeCount == 3, "the author's own like answer carries the count")

            // The Mastodon API hides it too: every status others read says 0, the author's says 3.
            for (reader, expected) in [(bob, 0), (carol, 0), (alice, 3)] {
                // Carol follows nobody: her home timeline is empty.
                let home = reader.profile.id == carol.profile.id ? [] : ["/api/v1/timelines/home"]
                for path in ["/api/v1/statuses/\(post.id)", "/api/v1/accounts/\(alice.profile.id)/statuses"] + home {
                    let body = String(buffer: try await client.send(.get, path, as: reader).body)
                    #expect(
                        body.contains("\"favourites_count\":\(expected)"), "\(path) as \(reader.profile.username)")
                }
            }
            let favourited = try await client.send(.post, "/api/v1/statuses/\(post.id)/unfavourite", as: bob)
            #expect(String(buffer: favourited.body).contains("\"favourites_count\":0"))
            let _: LikeState = try await client.call(.put, "/api/v1/posts/\(post.id)/like", as: bob)

            // Shown again: everyone sees the exact count, which stayed true underneath.
            let shown = try await hide(client, post.id, false, as: alice)
            #expect(!shown.likeCountHidden && shown.likeCount == 3)
            _ = try await bobsSocket.next(skipping: { visibility($0) == nil })
            let again: Page<Post> = try await client.call(.get, "/api/v1/timeline", as: bob)
            #expect(again.items.first?.likeCount == 3)
        }
    }

    @Test func onlyTheAuthorSwitchesAndTheProfileSetsNewPosts() async throws {
        try await TestServer.run({ $0.rateLimits = .unlimited }) { client, _ in
            let alice = try await client.signUp("alice")
            let bob = try await client.signUp("bob")
            let post = try await client.post("chelsea.jpg", as: alice)
            let forbidden = try await client.send(
                .patch, "/api/v1/posts/\(post.id)", as: bob, json: EditPostRequest(hideLikeCount: true))
            #expect(forbidden.status == .forbidden)
            let missing = try await client.send(
                .patch, "/api/v1/posts/999999", as: alice, json: EditPostRequest(hideLikeCount: true))
            #expect(missing.status == .notFound)
            let empty = try await client.send(.patch, "/api/v1/posts/\(post.id)", as: alice, json: EditPostRequest())
            #expect(empty.status == .badRequest, "a patch names what it changes")
            let nulls = ["caption": String?.none]
            let unchanged = try await client.send(.patch, "/api/v1/posts/\(post.id)", as: alice, json: nulls)
            #expect(unchanged.status == .ok, "null leaves a field as it is")
            let othersNulls = try await client.send(.patch, "/api/v1/posts/\(post.id)", as: bob, json: nulls)
            #expect(othersNulls.status == .forbidden)

            let profile: UserProfile = try await client.call(
                .patch, "/api/v1/me", as: alice, json: EditProfileRequest(hideLikeCounts: true))
            #expect(profile.hideLikeCounts == true)
            let seenByBob: UserProfile = try await client.call(.get, "/api/v1/users/alice", as: bob)
            #expect(seenByBob.hideLikeCounts == nil, "a setting of one's own")
            let newer = try await client.post("hubble.jpg", as: alice)
            #expect(newer.likeCountHidden && newer.likeCount == 0)
            let asBob: Post = try await client.call(.get, "/api/v1/posts/\(newer.id)", as: bob)
            #expect(asBob.likeCount == nil)
            let older: Post = try await client.call(.get, "/api/v1/posts/\(post.id)", as: bob)
            #expect(older.likeCount == 0 && !older.likeCountHidden, "earlier posts keep their own switch")
        }
    }
}

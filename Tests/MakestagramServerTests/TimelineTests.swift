import Foundation
import HummingbirdTesting
import MakestagramAPI
import NIOCore
import ServerTestSupport
import Testing

@Suite struct TimelineTests {
    @Test func followerSeesTheLikeInTheirTimeline() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            let bob = try await client.signUp("bob")
            let post = try await client.post("phone-gps-rotated.jpg", caption: "upright", as: alice)
            let empty: Page<Post> = try await client.call(.get, "/api/v1/timeline", as: bob)
            #expect(empty.items.isEmpty)
            let follow: FollowState = try await client.call(.put, "/api/v1/users/alice/follow", as: bob)
            #expect(follow == FollowState(followerCount: 1, viewerFollows: true))
            let like: LikeState = try await client.call(.put, "/api/v1/posts/\(post.id)/like", as: bob)
            #expect(like.likeCount == 1 && like.viewerHasLiked && like.likers == ["bob"])
            let bobs: Page<Post> = try await client.call(.get, "/api/v1/timeline", as: bob)
            let seen = try #require(bobs.items.first)
            #expect(seen.id == post.id && seen.likeCount == 1 && seen.viewerHasLiked && seen.likers == ["bob"])
            #expect(seen.image.width == 2688 && seen.image.height == 4032)
            let alices: Page<Post> = try await client.call(.get, "/api/v1/timeline", as: alice)
            #expect(alices.items.first?.likeCount == 1 && alices.items.first?.viewerHasLiked == false)
            #expect(seen.version == like.version, "the like's answer and the timeline agree on the post's version")
        }
    }

    @Test func listsShowEveryChangeToPostsTheyServedBefore() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            let bob = try await client.signUp("bob")
            _ = try await client.send(.put, "/api/v1/users/alice/follow", as: bob)
            let post = try await client.post("chelsea.jpg", caption: "before", as: alice)
            for user in [alice, bob] {
                for path in ["/api/v1/timeline", "/api/v1/users/alice/posts"] {
                    let page: Page<Post> = try await client.call(.get, path, as: user)
                    #expect(page.items.map(\.likeCount) == [0])
                }
            }
            _ = try await client.send(.put, "/api/v1/posts/\(post.id)/like", as: bob)
            _ = try await client.send(.post, "/api/v1/posts/\(post.id)/comments", as: alice, json: ["text": "nice"])
            for (user, liked) in [(alice, false), (bob, true), (alice, false)] {
                for path in ["/api/v1/timeline", "/api/v1/users/alice/posts"] {
                    let page: Page<Post> = try await client.call(.get, path, as: user)
                    let seen = try #require(page.items.first)
                    #expect(seen.likeCount == 1 && seen.likers == ["bob"] && seen.viewerHasLiked == liked, "\(path)")
                    #expect(seen.commentCount == 1 && seen.recentComments.map(\.text) == ["nice"], "\(path)")
                    #expect(seen == (try await client.call(.get, "/api/v1/posts/\(post.id)", as: user) as Post))
                }
            }
            _ = try await client.send(.delete, "/api/v1/posts/\(post.id)", as: alice)
            let empty: Page<Post> = try await client.call(.get, "/api/v1/timeline", as: bob)
            #expect(empty.items.isEmpty)
        }
    }

    @Test func cursorsPageBackAndRefreshWithoutRepeatsOrGaps() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            var ids: [Int64] = []
            for index in 0..<7 { ids.append(try await client.post("chelsea.jpg", caption: "\(index)", as: alice).id) }
            let first: Page<Post> = try await client.call(.get, "/api/v1/timeline?limit=3", as: alice)
            #expect(first.items.map(\.id) == Array(ids.reversed().prefix(3)))
            // Meanwhile: a new post on top and one deleted further down.
            let newest = try await client.post("rocket.jpg", as: alice).id
            _ = try await client.send(.delete, "/api/v1/posts/\(ids[2])", as: alice)
            var seen = first.items.map(\.id)
            var cursor = first.nextCursor
            while let next = cursor {
                let page: Page<Post> = try await client.call(.get, "/api/v1/timeline?limit=3&cursor=\(next)", as: alice)
                seen += page.items.map(\.id)
                cursor = page.nextCursor
            }
            #expect(seen == ids.reversed().filter { $0 != ids[2] })
            let refresh: Page<Post> = try await client.call(
                .get, "/api/v1/timeline?cursor=\(try #require(first.newerCursor))", as: alice)
            #expect(refresh.items.map(\.id) == [newest])
            let nothing: Page<Post> = try await client.call(
                .get, "/api/v1/timeline?cursor=\(try #require(refresh.newerCursor))", as: alice)
            #expect(nothing.items.isEmpty && nothing.newerCursor == refresh.newerCursor)
        }
    }

    @Test func badPagingParametersAreClientErrors() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            for query in ["cursor=nonsense", "cursor=%FF", "limit=0", "limit=101", "limit=ten"] {
                let problem = try await client.problem(.get, "/api/v1/timeline?\(query)", as: alice)
                #expect(problem.status == 400, "\(query)")
            }
            let first: Page<Post> = try await client.call(.get, "/api/v1/timeline", as: alice)
            _ = first
            // A cursor from another list is refused too.
            let post = try await client.post("chelsea.jpg", as: alice)
            _ = try await client.send(
                .post, "/api/v1/posts/\(post.id)/comments", as: alice, json: NewCommentRequest(text: "a"))
            _ = try await client.send(
                .post, "/api/v1/posts/\(post.id)/comments", as: alice, json: NewCommentRequest(text: "b"))
            let comments: Page<MakestagramAPI.Comment> = try await client.call(
                .get, "/api/v1/posts/\(post.id)/comments?limit=1", as: alice)
            let foreign = try #require(comments.nextCursor)
            #expect(
                try await client.problem(.get, "/api/v1/timeline?cursor=\(foreign)", as: alice).code == "invalid_cursor"
            )
        }
    }

    @Test func userPostsListOneAuthor() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            let bob = try await client.signUp("bob")
            let a = try await client.post("chelsea.jpg", as: alice)
            _ = try await client.post("rocket.jpg", as: bob)
            let page: Page<Post> = try await client.call(.get, "/api/v1/users/alice/posts", as: bob)
            #expect(page.items.map(\.id) == [a.id])
            #expect(try await client.problem(.get, "/api/v1/users/nobody/posts", as: bob).status == 404)
        }
    }
}

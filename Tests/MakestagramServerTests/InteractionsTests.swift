import Foundation
import HummingbirdTesting
import MakestagramAPI
import NIOCore
import ServerTestSupport
import Testing

@Suite struct InteractionsTests {
    @Test func sixtyFourClientsTogglingLikesLeaveExactCounts() async throws {
        try await TestServer.run({ $0.rateLimits = .unlimited }) { client, _ in
            let author = try await client.signUp("author")
            let post = try await client.post("chelsea.jpg", as: author)
            let users = try await withThrowingTaskGroup(of: TestUser.self) { group in
                for index in 0..<64 { group.addTask { try await client.signUp("user\(index)") } }
                return try await group.reduce(into: [TestUser]()) { $0.append($1) }
            }
            let finals = try await withThrowingTaskGroup(of: (String, Bool).self) { group in
                for user in users {
                    group.addTask {
                        var liked = false
                        for _ in 0..<8 {
                            liked = Bool.random()
                            let state: LikeState = try await client.call(
                                liked ? .put : .delete, "/api/v1/posts/\(post.id)/like", as: user)
                            #expect(state.viewerHasLiked == liked)
                        }
                        return (user.profile.username, liked)
                    }
                }
                return try await group.reduce(into: [String: Bool]()) { $0[$1.0] = $1.1 }
            }
            let likers: Page<UserSummary> = try await client.call(
                .get, "/api/v1/posts/\(post.id)/likes?limit=100", as: author)
            let expected = Set(finals.filter(\.value).keys)
            #expect(Set(likers.items.map(\.username)) == expected)
            let final: Post = try await client.call(.get, "/api/v1/posts/\(post.id)", as: author)
            #expect(final.likeCount == expected.count)
            for user in users.prefix(8) {
                let seen: Post = try await client.call(.get, "/api/v1/posts/\(post.id)", as: user)
                #expect(seen.viewerHasLiked == finals[user.profile.username])
            }
        }
    }

    @Test func likesAreIdempotentAndListedNewestFirst() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            let bob = try await client.signUp("bob")
            let carol = try await client.signUp("carol")
            let post = try await client.post("chelsea.jpg", as: alice)
            var liked: [LikeState] = []
            for _ in 0..<2 {
                let state: LikeState = try await client.call(.put, "/api/v1/posts/\(post.id)/like", as: bob)
                #expect(state.likeCount == 1 && state.viewerHasLiked && state.likers == ["bob"])
                liked.append(state)
            }
            #expect(liked[0].version == liked[1].version, "a like that changes nothing does not change the version")
            _ = try await client.send(.put, "/api/v1/posts/\(post.id)/like", as: carol)
            let first: Page<UserSummary> = try await client.call(
                .get, "/api/v1/posts/\(post.id)/likes?limit=1", as: alice)
            #expect(first.items.map(\.username) == ["carol"])
            let second: Page<UserSummary> = try await client.call(
                .get, "/api/v1/posts/\(post.id)/likes?limit=1&cursor=\(try #require(first.nextCursor))", as: alice)
            #expect(second.items.map(\.username) == ["bob"] && second.nextCursor == nil)
            for _ in 0..<2 {
                let state: LikeState = try await client.call(.delete, "/api/v1/posts/\(post.id)/like", as: bob)
                #expect(state.likeCount == 1 && !state.viewerHasLiked && state.likers == ["carol"])
                #expect(state.version > liked[0].version)
            }
        }
    }

    @Test func commentsCountAndPermissions() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            let bob = try await client.signUp("bob")
            let carol = try await client.signUp("carol")
            let post = try await client.post("chelsea.jpg", as: alice)
            let comment: MakestagramAPI.Comment = try await client.call(
                .post, "/api/v1/posts/\(post.id)/comments", as: bob, json: NewCommentRequest(text: " nice! "),
                expect: .created)
            #expect(comment.text == "nice!" && comment.author.username == "bob")
            let other: MakestagramAPI.Comment = try await client.call(
                .post, "/api/v1/posts/\(post.id)/comments", as: carol, json: NewCommentRequest(text: "2nd"),
                expect: .created)
            let list: Page<MakestagramAPI.Comment> = try await client.call(
                .get, "/api/v1/posts/\(post.id)/comments", as: alice)
            #expect(list.items.map(\.id) == [comment.id, other.id])
            #expect(
                try await client.problem(
                    .post, "/api/v1/posts/\(post.id)/comments", as: bob, json: NewCommentRequest(text: "   ")
                ).status == 422)
            #expect(
                try await client.problem(
                    .post, "/api/v1/posts/\(post.id)/comments", as: bob,
                    json: NewCommentRequest(text: String(repeating: "x", count: 2201))
                ).status == 422)
            #expect(try await client.problem(.delete, "/api/v1/comments/\(comment.id)", as: carol).status == 403)
            #expect(try await client.send(.delete, "/api/v1/comments/\(comment.id)", as: bob).status == .noContent)
            #expect(try await client.send(.delete, "/api/v1/comments/\(other.id)", as: alice).status == .noContent)
            let after: Post = try await client.call(.get, "/api/v1/posts/\(post.id)", as: alice)
            #expect(after.commentCount == 0)
        }
    }

    @Test func reportsOncePerUserNeverOwnPost() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            let bob = try await client.signUp("bob")
            let post = try await client.post("chelsea.jpg", as: alice)
            let uri = "/api/v1/posts/\(post.id)/reports"
            #expect(try await client.send(.post, uri, as: bob, json: ReportRequest(reason: "spam")).status == .created)
            #expect(
                try await client.problem(.post, uri, as: bob, json: ReportRequest(reason: "spam")).code
                    == "already_reported")
            #expect(
                try await client.problem(.post, uri, as: alice, json: ReportRequest(reason: "x")).code
                    == "cannot_report_own_post")
            #expect(try await client.problem(.post, uri, as: bob, json: ReportRequest(reason: "")).status == 422)
        }
    }
}

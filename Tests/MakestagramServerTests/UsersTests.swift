import Foundation
import HummingbirdTesting
import MakestagramAPI
import NIOCore
import ServerTestSupport
import Testing

@Suite struct UsersTests {
    @Test func profilesFollowsAndSearch() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            let bob = try await client.signUp("bob")
            let carol = try await client.signUp("carol")
            _ = try await client.signUp("albert")
            _ = try await client.post("chelsea.jpg", as: alice)
            for user in [bob, carol] {
                let state: FollowState = try await client.call(.put, "/api/v1/users/Alice/follow", as: user)
                #expect(state.viewerFollows)
            }
            let again: FollowState = try await client.call(.put, "/api/v1/users/alice/follow", as: bob)
            #expect(again.followerCount == 2)
            let profile: UserProfile = try await client.call(.get, "/api/v1/users/alice", as: bob)
            #expect(profile.postCount == 1 && profile.followerCount == 2 && profile.followingCount == 0)
            #expect(profile.viewerFollows)
            let own: UserProfile = try await client.call(.get, "/api/v1/users/alice", as: alice)
            #expect(!own.viewerFollows)

            let followers: Page<UserSummary> = try await client.call(
                .get, "/api/v1/users/alice/followers?limit=1", as: bob)
            #expect(followers.items.map(\.username) == ["carol"])
            let rest: Page<UserSummary> = try await client.call(
                .get, "/api/v1/users/alice/followers?limit=1&cursor=\(try #require(followers.nextCursor))", as: bob)
            #expect(rest.items.map(\.username) == ["bob"])
            let following: Page<UserSummary> = try await client.call(.get, "/api/v1/users/bob/following", as: bob)
            #expect(following.items.map(\.username) == ["alice"])

            let unfollow: FollowState = try await client.call(.delete, "/api/v1/users/alice/follow", as: bob)
            #expect(unfollow == FollowState(followerCount: 1, viewerFollows: false))
            #expect(try await client.problem(.put, "/api/v1/users/bob/follow", as: bob).code == "cannot_follow_self")
            #expect(try await client.problem(.put, "/api/v1/users/nobody/follow", as: bob).status == 404)
            #expect(try await client.problem(.get, "/api/v1/users/nobody", as: bob).status == 404)
            #expect(try await client.problem(.get, "/api/v1/users/no%20body", as: bob).status == 404)

            let found: Page<UserSummary> = try await client.call(.get, "/api/v1/users?query=AL", as: bob)
            #expect(found.items.map(\.username) == ["alice", "albert"])
            let none: Page<UserSummary> = try await client.call(.get, "/api/v1/users?query=%25", as: bob)
            #expect(none.items.isEmpty)
            #expect(try await client.problem(.get, "/api/v1/users?query=", as: bob).status == 400)
        }
    }

    @Test func theSameDataIsTheSameBytesInEveryAnswer() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            var answers = Set<String>()
            for _ in 0..<20 {
                let response = try await client.send(.get, "/api/v1/users/alice", as: alice)
                #expect(response.status == .ok)
                answers.insert(String(buffer: response.body))
            }
            #expect(answers.count == 1)
            let answer = try #require(answers.first)
            let keys = ["createdAt", "displayName", "followerCount", "followingCount", "id", "username"]
            let offsets = keys.compactMap { answer.range(of: "\"\($0)\":")?.lowerBound }
            #expect(offsets.count == keys.count && offsets == offsets.sorted(), "\(answer)")
            #expect(!answer.contains(#"\/"#))
        }
    }

    @Test func listsOfPeopleSayWhomTheViewerFollowsAndSuggest() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            let bob = try await client.signUp("bob")
            let carol = try await client.signUp("carol")
            _ = try await client.signUp("dave")
            let _: FollowState = try await client.call(.put, "/api/v1/users/alice/follow", as: bob)
            let _: FollowState = try await client.call(.put, "/api/v1/users/carol/follow", as: alice)
            let post = try await client.post("chelsea.jpg", as: carol)
            let _: LikeState = try await client.call(.put, "/api/v1/posts/\(post.id)/like", as: alice)
            let _: LikeState = try await client.call(.put, "/api/v1/posts/\(post.id)/like", as: bob)

            func list(_ path: String) async throws -> [String: Bool?] {
                let page: Page<UserSummary> = try await client.call(.get, path, as: bob)
                return Dictionary(uniqueKeysWithValues: page.items.map { ($0.username, $0.viewerFollows) })
            }
            #expect(try await list("/api/v1/users?query=aro") == ["carol": false])
            #expect(try await list("/api/v1/users/alice/followers") == ["bob": nil])
            #expect(try await list("/api/v1/users/alice/following") == ["carol": false])
            #expect(try await list("/api/v1/posts/\(post.id)/likes") == ["alice": true, "bob": nil])
            // carol is followed by alice, whom bob follows; then the most followed.
            let suggested: Page<UserSummary> = try await client.call(.get, "/api/v1/me/suggestions?limit=2", as: bob)
            #expect(suggested.items.map(\.username) == ["carol", "dave"])
            #expect(suggested.items.map(\.viewerFollows) == [false, false])
            let _: FollowState = try await client.call(.put, "/api/v1/users/carol/follow", as: bob)
            #expect(try await list("/api/v1/users/alice/following") == ["carol": true])
            #expect(try await list("/api/v1/me/suggestions?for=alice") == ["dave": false])

            #expect(try await client.problem(.get, "/api/v1/me/suggestions?for=nobody", as: bob).status == 404)
            #expect(try await client.problem(.get, "/api/v1/me/suggestions?limit=0", as: bob).status == 400)
            #expect(try await client.problem(.get, "/api/v1/me/suggestions").status == 401)
            let long = String(repeating: "a", count: 51)
            #expect(try await client.problem(.get, "/api/v1/users?query=\(long)", as: bob).status == 400)
            #expect(try await client.problem(.get, "/api/v1/users?query=%20%20", as: bob).status == 400)
            #expect(try await client.problem(.get, "/api/v1/users?query=ab%00c", as: bob).status == 400)
            #expect(try await list("/api/v1/users?query=\(String(repeating: "a", count: 50))") == [:])
        }
    }
}

@Suite struct SystemTests {
    @Test func healthMetricsAndDocument() async throws {
        try await TestServer.run { client, _ in
            let alice = try await client.signUp("alice")
            _ = try await client.post("chelsea.jpg", as: alice)
            _ = try await client.send(.get, "/api/v1/posts/999", as: alice)
            let health = try await client.send(.get, "/healthz")
            #expect(String(buffer: health.body).contains("ok"))
            let metrics = String(buffer: try await client.send(.get, "/metrics").body)
            #expect(metrics.contains("hb_requests"))
            #expect(metrics.contains("http_server_request_duration"))
            #expect(metrics.contains(#"http_route="/api/v1/posts/{id}""#))
            #expect(
                metrics.contains(
                    #"hb_request_errors{http_route="/api/v1/posts/{id}",http_request_method="GET",error_type="404"}"#))
            #expect(
                metrics.contains(
                    #"hb_requests{http_route="/healthz",http_request_method="GET",http_response_status_code="200"}"#))
            // Error series exist only for failures.
            #expect(!metrics.contains(#"error_type="200""#))
            #expect(metrics.contains("makestagram_uploads_total"))
            #expect(metrics.contains("makestagram_errors_total"))
            let document = String(buffer: try await client.send(.get, "/api/v1/openapi.yaml").body)
            #expect(document.hasPrefix("openapi: 3.1"))
        }
    }

    @Test func demoDataIsSeededOnce() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        for _ in 0..<2 {
            try await TestServer.run({
                $0.dataDirectory = folder
                $0.demo = true
            }) { client, _ in
                let login: AuthResponse = try await client.call(
                    .post, "/api/v1/sessions", json: LogInRequest(username: "alice", password: "makestagram"))
                let alice = TestUser(profile: login.user, token: login.token)
                let timeline: Page<Post> = try await client.call(.get, "/api/v1/timeline", as: alice)
                #expect(timeline.items.count == 6)
                #expect(timeline.items.contains { ($0.likeCount ?? 0) > 0 && $0.commentCount > 0 })
                let album = try #require(timeline.items.first { $0.photos.count > 1 })
                #expect(album.photos.count == 3 && album.photos.allSatisfy { $0.altText != nil })
                // Each demo photo keeps every rendition its upload made, and no file is left over.
                let photos = timeline.items.flatMap(\.photos)
                #expect(photos.allSatisfy { !$0.variants.isEmpty })
                let referenced = Set(
                    photos.flatMap { [$0.full, $0.thumb] + $0.variants }.map {
                        String($0.url.split(separator: "/").last ?? "")
                    })
                let stored = try FileManager.default.contentsOfDirectory(
                    atPath: folder.appendingPathComponent("media").path)
                #expect(Set(stored) == referenced)
                let found: Page<UserSummary> = try await client.call(.get, "/api/v1/users?query=a", as: alice)
                #expect(found.items.map(\.username) == ["alice"])
            }
        }
    }
}

import Foundation
import HTTPTypes
import HummingbirdTesting
import MakestagramAPI
import MakestagramStore
import MakestagramStoreSQLite
import ServerTestSupport
import Testing

@testable import MakestagramServer

/// The moderators' routes, and closing accounts over HTTP: a moderator made on the server's machine works the
/// reports queue; a suspended author is logged out with a reason; a deleted account vanishes with its likes.
@Suite struct ModerationTests {
    /// Every moderator route, with a body where it takes one.
    static let routes: [(HTTPRequest.Method, String)] = [
        (.get, "/api/v1/moderation/reports"),
        (.post, "/api/v1/moderation/reports/1/dismiss"),
        (.post, "/api/v1/moderation/posts/1/remove"),
        (.post, "/api/v1/moderation/users/alice/suspend"),
        (.post, "/api/v1/moderation/users/alice/unsuspend"),
        (.get, "/api/v1/moderation/log"),
    ]

    static func grant(_ username: String, folder: URL, moderator: Bool = true) async throws {
        var configuration = ServerConfiguration()
        configuration.dataDirectory = folder
        try await Administration.setModerator(username, moderator: moderator, configuration: configuration)
    }

    @Test func everyModeratorRouteRefusesEveryoneElse() async throws {
        try await TestServer.run { client, folder in
            let alice = try await client.signUp("alice")
            let post = try await client.post("chelsea.jpg", as: alice)
            let mallory = try await client.signUp("mallory")
            let reported = try await client.send(
                .post, "/api/v1/posts/\(post.id)/reports", as: mallory, json: ReportRequest(reason: "x"))
            #expect(reported.status == .created)
            for (method, path) in Self.routes {
                let path = path.replacingOccurrences(of: "/1/", with: "/\(post.id)/")
                #expect(try await client.problem(method, path).status == 401, "\(method) \(path) without a token")
                let refused = try await client.problem(method, path, as: mallory, json: ModerationRequest(reason: "x"))
                #expect(refused.status == 403 && refused.code == "forbidden", "\(method) \(path) by a member")
            }
            // Nothing happened: the post and its report are there, alice can log in.
            #expect(try await client.send(.get, "/api/v1/posts/\(post.id)", as: alice).status == .ok)
            // A moderator whose role is taken away is refused at once.
            try await Self.grant("mallory", folder: folder)
            #expect(try await client.send(.get, "/api/v1/moderation/reports", as: mallory).status == .ok)
            try await Self.grant("mallory", folder: folder, moderator: false)
            #expect(try await client.problem(.get, "/api/v1/moderation/reports", as: mallory).status == 403)
            let me: UserProfile = try await client.call(.get, "/api/v1/me", as: mallory)
            #expect(me.isModerator == false)
        }
    }

    @Test func aModeratorRemovesAReportedPostAndSuspendsItsAuthorWhoseScreensAreToldWhy() async throws {
        try await TestServer.run({ $0.rateLimits = .unlimited }, setup: .live) { client, folder in
            let port = try #require(client.port)
            let moderator = try await client.signUp("mod")
            let author = try await client.signUp("troll")
            let friend = try await client.signUp("friend")
            let _: FollowState = try await client.call(.put, "/api/v1/users/troll/follow", as: friend)
            let bad = try await client.post("chelsea.jpg", caption: "bad", as: author)
            let other = try await client.post("chelsea.jpg", caption: "also mine", as: author)
            for name in ["reporter1", "reporter2", "reporter3"] {
                let reporter = try await client.signUp(name)
                let response = try await client.send(
                    .post, "/api/v1/posts/\(bad.id)/reports", as: reporter, json: ReportRequest(reason: "by \(name)"))
                #expect(response.status == .created)
            }
            try await Self.grant("mod", folder: folder)
            let me: UserProfile = try await client.call(.get, "/api/v1/me", as: moderator)
            #expect(me.isModerator == true)

            let queue: Page<ReportedPost> = try await client.call(.get, "/api/v1/moderation/reports", as: moderator)
            #expect(queue.items.map(\.post.id) == [bad.id] && queue.items[0].reportCount == 3)
            #expect(queue.items[0].reports.map(\.reason) == ["by reporter1", "by reporter2", "by reporter3"])

            let long = String(repeating: "x", count: Limits.moderationReasonLength.upperBound + 1)
            #expect(
                try await client.problem(
                    .post, "/api/v1/moderation/posts/\(bad.id)/remove", as: moderator,
                    json: ModerationRequest(reason: long)
                ).status == 422)
            let removed = try await client.send(
                .post, "/api/v1/moderation/posts/\(bad.id)/remove", as: moderator,
                json: ModerationRequest(reason: "harassment"))
            #expect(removed.status == .noContent)
            #expect(try await client.problem(.get, "/api/v1/posts/\(bad.id)", as: friend).status == 404)
            #expect(
                try await client.problem(.get, "/media/\(bad.image.full.url.split(separator: "/").last!)").status == 404
            )

            let authorsSocket = try await LiveClient.connect(port: port, token: author.token)
            let friendsSocket = try await LiveClient.connect(port: port, token: friend.token)
            defer { friendsSocket.close() }
            _ = try await friendsSocket.subscribe([other.id])
            #expect(
                try await client.problem(.post, "/api/v1/moderation/users/mod/suspend", as: moderator).status == 403,
                "not oneself")
            #expect(
                try await client.send(.post, "/api/v1/moderation/users/troll/suspend", as: moderator).status
                    == .noContent)
            let frame = try await authorsSocket.closed.value
            #expect(frame?.closeCode == .unknown(LiveCloseCode.accountClosed) && frame?.reason == "account suspended")
            let told = try await friendsSocket.next { if case .userRemoved = $0 { false } else { true } }
            #expect(told == .userRemoved(LiveUserRemoved(userId: author.profile.id)))
            #expect(try await client.problem(.get, "/api/v1/me", as: author).status == 401)
            let login = try await client.problem(
                .post, "/api/v1/sessions", json: LogInRequest(username: "troll", password: "correct horse"))
            #expect(login.status == 403 && login.code == "account_suspended")
            let wrong = try await client.problem(
                .post, "/api/v1/sessions", json: LogInRequest(username: "troll", password: "wrong password"))
            #expect(wrong.code == "invalid_credentials", "a guess learns nothing of the suspension")
            let timeline: Page<Post> = try await client.call(.get, "/api/v1/timeline", as: friend)
            #expect(timeline.items.isEmpty)
            #expect(try await client.problem(.get, "/api/v1/users/troll", as: friend).status == 404)

            #expect(
                try await client.send(.post, "/api/v1/moderation/users/troll/unsuspend", as: moderator).status
                    == .noContent)
            let back: Page<Post> = try await client.call(.get, "/api/v1/timeline", as: friend)
            #expect(back.items.map(\.id) == [other.id])
            let log: Page<ModerationEntry> = try await client.call(.get, "/api/v1/moderation/log", as: moderator)
            #expect(log.items.map(\.action) == ["lift_suspension", "suspend", "remove_post", "grant_moderator"])
            #expect(log.items[2].reason == "harassment" && log.items[2].postId == bad.id)
        }
    }

    /// One rule for a suspended author's posts: every route that reads or writes one answers 404, as the post's own
    /// page does, and changes nothing; the author's likes leave every likers preview and their photos are not served.
    @Test func aSuspendedAuthorsPostsAreGoneFromEveryRouteAndTheirLikesFromEveryPreview() async throws {
        try await TestServer.run({ $0.rateLimits = .unlimited }) { client, folder in
            let moderator = try await client.signUp("mod")
            try await Self.grant("mod", folder: folder)
            let author = try await client.signUp("troll")
            let reader = try await client.signUp("reader")
            let friend = try await client.signUp("friend")
            let post = try await client.post("chelsea.jpg", caption: "mine", as: author)
            let friendsPost = try await client.post("rocket.jpg", caption: "theirs", as: friend)
            let _: LikeState = try await client.call(.put, "/api/v1/posts/\(friendsPost.id)/like", as: author)
            let _: LikeState = try await client.call(.put, "/api/v1/posts/\(post.id)/like", as: reader)
            let media = "/media/\(post.image.full.url.split(separator: "/").last!)"
            #expect(try await client.send(.get, media).status == .ok)
            #expect(
                try await client.send(.post, "/api/v1/moderation/users/troll/suspend", as: moderator).status
                    == .noContent)

            let comment = NewCommentRequest(text: "still here?")
            let report = ReportRequest(reason: "spam")
            let routes: [(HTTPRequest.Method, String, (any Encodable)?)] = [
                (.get, "/api/v1/posts/\(post.id)", nil), (.get, "/api/v1/posts/\(post.id)/likes", nil),
                (.get, "/api/v1/posts/\(post.id)/comments", nil), (.put, "/api/v1/posts/\(post.id)/like", nil),
                (.delete, "/api/v1/posts/\(post.id)/like", nil),
                (.post, "/api/v1/posts/\(post.id)/comments", comment),
                (.post, "/api/v1/posts/\(post.id)/reports", report), (.get, "/api/v1/statuses/\(post.id)", nil),
                (.get, "/api/v1/statuses/\(post.id)/context", nil),
                (.get, "/api/v1/statuses/\(post.id)/favourited_by", nil),
                (.post, "/api/v1/statuses/\(post.id)/favourite", nil),
                (.post, "/api/v1/statuses/\(post.id)/unfavourite", nil),
            ]
            for (method, path, body) in routes {
                let answer = try await client.problem(method, path, as: reader, json: body)
                #expect(answer.status == 404, "\(method) \(path)")
            }
            #expect(try await client.problem(.get, media).status == 404, "the photo is not served")
            let seen: Post = try await client.call(.get, "/api/v1/posts/\(friendsPost.id)", as: reader)
            #expect(seen.likers.isEmpty, "the suspended liker is not named")

            // Nothing changed behind the 404s: lifted, everything is as it was.
            #expect(
                try await client.send(.post, "/api/v1/moderation/users/troll/unsuspend", as: moderator).status
                    == .noContent)
            let back: Post = try await client.call(.get, "/api/v1/posts/\(post.id)", as: reader)
            #expect(back.likeCount == 1 && back.viewerHasLiked && back.commentCount == 0)
            #expect(try await client.send(.get, media).status == .ok)
            let named: Post = try await client.call(.get, "/api/v1/posts/\(friendsPost.id)", as: reader)
            #expect(named.likers == ["troll"])
            let reports: Page<ReportedPost> = try await client.call(
                .get, "/api/v1/moderation/reports", as: moderator)
            #expect(reports.items.isEmpty)
        }
    }

    @Test func deletingYourAccountTakesYourLikesFromFriendsPostsAndKeepsYourNameReserved() async throws {
        try await TestServer.run({ $0.rateLimits = .unlimited }, setup: .live) { client, folder in
            let port = try #require(client.port)
            let leaving = try await client.signUp("leaving")
            let friend = try await client.signUp("friend")
            let friendsPost = try await client.post("chelsea.jpg", caption: "mine", as: friend)
            let own = try await client.post("chelsea.jpg", caption: "theirs", as: leaving)
            let _: LikeState = try await client.call(.put, "/api/v1/posts/\(friendsPost.id)/like", as: leaving)
            let _: MakestagramAPI.Comment = try await client.call(
                .post, "/api/v1/posts/\(friendsPost.id)/comments", as: leaving, json: NewCommentRequest(text: "bye"),
                expect: .created)
            let _: FollowState = try await client.call(.put, "/api/v1/users/friend/follow", as: leaving)
            let friendsSocket = try await LiveClient.connect(port: port, token: friend.token)
            defer { friendsSocket.close() }
            _ = try await friendsSocket.subscribe([friendsPost.id])
            let leavingSocket = try await LiveClient.connect(port: port, token: leaving.token)

            let wrong = try await client.problem(
                .post, "/api/v1/me/delete", as: leaving, json: DeleteAccountRequest(password: "not my password"))
            #expect(wrong.status == 422)
            #expect(try await client.problem(.post, "/api/v1/me/delete", as: friend, json: ["nope": 1]).status == 400)
            let deleted = try await client.send(
                .post, "/api/v1/me/delete", as: leaving, json: DeleteAccountRequest(password: "correct horse"))
            #expect(deleted.status == .accepted)
            #expect(try await leavingSocket.closed.value?.reason == "account deleted")
            #expect(try await client.problem(.get, "/api/v1/me", as: leaving).status == 401)

            // The like goes as an unlike, live, and the count follows.
            let unliked = try await friendsSocket.next { if case .unliked = $0 { false } else { true } }
            guard case .unliked(let like) = unliked else { return }
            #expect(like.likeCount == 0 && like.actor.username == "leaving")
            var post: Post = try await client.call(.get, "/api/v1/posts/\(friendsPost.id)", as: friend)
            for _ in 0..<200 where post.commentCount > 0 || post.likeCount != 0 {
                try await Task.sleep(for: .milliseconds(20))
                post = try await client.call(.get, "/api/v1/posts/\(friendsPost.id)", as: friend)
            }
            #expect(post.likeCount == 0 && post.commentCount == 0 && post.likers.isEmpty)
            var profile: UserProfile = try await client.call(.get, "/api/v1/users/friend", as: friend)
            for _ in 0..<200 where profile.followerCount > 0 {
                try await Task.sleep(for: .milliseconds(20))
                profile = try await client.call(.get, "/api/v1/users/friend", as: friend)
            }
            #expect(profile.followerCount == 0)
            #expect(try await client.problem(.get, "/api/v1/posts/\(own.id)", as: friend).status == 404)
            let file = String(own.image.full.url.split(separator: "/").last!)
            for _ in 0..<200
            where FileManager.default.fileExists(
                atPath: folder.appendingPathComponent("media/\(file)").path)
            {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("media/\(file)").path))
            let taken = try await client.problem(
                .post, "/api/v1/accounts",
                json: SignUpRequest(username: "Leaving", password: "correct horse", displayName: "Impostor"))
            #expect(taken.status == 409)
            let login = try await client.problem(
                .post, "/api/v1/sessions", json: LogInRequest(username: "leaving", password: "correct horse"))
            #expect(login.code == "invalid_credentials")
        }
    }

    @Test func aDeletionInterruptedHalfWayIsFinishedWhenTheServerStarts() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("makestagram-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var configuration = ServerConfiguration()
        configuration.dataDirectory = folder
        configuration.port = 0
        configuration.logLevel = .warning
        let store = SQLiteStore(database: try AppDatabase(path: configuration.databasePath))
        func user(_ name: String) async throws -> Int64 {
            try await store.createUser(NewUser(username: name, displayName: name, passwordHash: "x")).id
        }
        let leaving = try await user("leaving")
        let friend = try await user("friend")
        let friendsPost = try await store.createPost(
            NewPost(
                authorID: friend, caption: "", width: 4, height: 3,
                full: StoredVariant(fileName: "a.jpg", width: 4, height: 3),
                thumb: StoredVariant(fileName: "b.jpg", width: 4, height: 3)))
        for index in 0..<30 {
            let post = try await store.createPost(
                NewPost(
                    authorID: leaving, caption: "\(index)", width: 4, height: 3,
                    full: StoredVariant(fileName: "f\(index).jpg", width: 4, height: 3),
                    thumb: StoredVariant(fileName: "t\(index).jpg", width: 4, height: 3)))
            _ = try await store.setLike(postID: post.id, viewer: friend, liked: true)
        }
        _ = try await store.setLike(postID: friendsPost.id, viewer: leaving, liked: true)
        try await store.beginAccountDeletion(userID: leaving, reserveUsernameUntil: Date().addingTimeInterval(60))
        // Half-way: the like is gone, the posts are not; the account was hidden from the start.
        #expect(try await !store.continueAccountDeletion(userID: leaving, limit: 1).finished)
        #expect(try await store.profile(id: leaving, viewer: friend) == nil)

        let app = try await buildApplication(configuration)
        try await app.test(.router) { client in
            let login: AuthResponse = try await client.call(
                .post, "/api/v1/accounts",
                json: SignUpRequest(username: "watcher", password: "correct horse", displayName: "W"),
                expect: .created)
            let watcher = TestUser(profile: login.user, token: login.token)
            for _ in 0..<250 where try await !store.accountsBeingDeleted().isEmpty {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await store.accountsBeingDeleted().isEmpty)
            let friendProfile: UserProfile = try await client.call(.get, "/api/v1/users/friend", as: watcher)
            #expect(friendProfile.postCount == 1)
            #expect(try await client.problem(.get, "/api/v1/users/leaving", as: watcher).status == 404)
            let post: Post = try await client.call(.get, "/api/v1/posts/\(friendsPost.id)", as: watcher)
            #expect(post.likeCount == 0)
        }
    }
}

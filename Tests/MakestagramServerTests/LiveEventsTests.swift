import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MakestagramAPI
import MakestagramLive
import MakestagramServer
import NIOCore
import ServerTestSupport
import Testing

/// The event stream through real WebSocket clients against a live server.
@Suite struct LiveEventsTests {
    /// Runs `test` on a live server (without rate limits: these tests send bursts on purpose) with alice, bob and
    /// carol signed up and one post by alice.
    func withPost(
        _ configure: (inout ServerConfiguration) -> Void = { _ in },
        test: @Sendable @escaping (any TestClientProtocol, Int, [TestUser], Post) async throws -> Void
    ) async throws {
        try await TestServer.run(
            {
                $0.rateLimits = .unlimited
                configure(&$0)
            }, setup: .live
        ) { client, _ in
            let port = try #require(client.port)
            let users = [
                try await client.signUp("alice"), try await client.signUp("bob"), try await client.signUp("carol"),
            ]
            let post = try await client.post("chelsea.jpg", caption: "live", as: users[0])
            try await test(client, port, users, post)
        }
    }

    func like(_ client: any TestClientProtocol, _ post: Int64, as user: TestUser, _ liked: Bool = true) async throws {
        let _: LikeState = try await client.call(liked ? .put : .delete, "/api/v1/posts/\(post)/like", as: user)
    }

    @Test func aLikeReachesAnotherSubscriberWithTheirOwnViewerState() async throws {
        try await withPost { client, port, users, post in
            let (alice, bob, carol) = (users[0], users[1], users[2])
            let socket = try await LiveClient.connect(port: port, token: bob.token)
            defer { socket.close() }
            let (answer, snapshots) = try await socket.subscribe([post.id])
            #expect(answer == LiveSubscribed(posts: [post.id], unavailable: []))
            #expect(snapshots.first?.likeCount == 0)
            let start = try #require(snapshots.first?.version)

            try await like(client, post.id, as: carol)
            guard case .liked(let byCarol) = try await socket.next() else {
                Issue.record("expected post.liked")
                return
            }
            #expect(byCarol.postId == post.id)
            #expect(byCarol.actor.username == "carol")
            #expect(byCarol.likeCount == 1)
            #expect(byCarol.likers == ["carol"])
            #expect(byCarol.viewerHasLiked == false)
            #expect(byCarol.version > start)

            try await like(client, post.id, as: bob)
            guard case .liked(let byBob) = try await socket.next() else {
                Issue.record("expected post.liked")
                return
            }
            #expect(byBob.likeCount == 2 && byBob.viewerHasLiked && byBob.version > byCarol.version)

            try await like(client, post.id, as: carol, false)
            guard case .unliked(let unlike) = try await socket.next() else {
                Issue.record("expected unliked")
                return
            }
            #expect(unlike.likeCount == 1 && unlike.viewerHasLiked && unlike.likers == ["bob"])

            // An idempotent repeat changes nothing and announces nothing; alice's like is the next event.
            try await like(client, post.id, as: bob)
            try await like(client, post.id, as: alice)
            guard case .liked(let byAlice) = try await socket.next() else {
                Issue.record("expected liked")
                return
            }
            #expect(byAlice.actor.username == "alice" && byAlice.likeCount == 2 && byAlice.viewerHasLiked)
        }
    }

    @Test func subscribingSendsTheCurrentStateFirst() async throws {
        try await withPost { client, port, users, post in
            try await like(client, post.id, as: users[1])
            try await like(client, post.id, as: users[2])
            let _: MakestagramAPI.Comment = try await client.call(
                .post, "/api/v1/posts/\(post.id)/comments", as: users[2], json: NewCommentRequest(text: "hi"),
                expect: .created)
            let socket = try await LiveClient.connect(port: port, token: users[1].token)
            defer { socket.close() }
            let (_, snapshots) = try await socket.subscribe([post.id])
            let current: Post = try await client.call(.get, "/api/v1/posts/\(post.id)", as: users[1])
            #expect(snapshots == [current])
            #expect(current.likeCount == 2 && current.commentCount == 1 && current.viewerHasLiked)
        }
    }

    @Test func unsubscribingStopsEvents() async throws {
        try await withPost { client, port, users, first in
            let second = try await client.post("chelsea.jpg", caption: "second", as: users[0])
            let socket = try await LiveClient.connect(port: port, token: users[1].token)
            defer { socket.close() }
            _ = try await socket.subscribe([first.id, second.id])
            socket.send(.unsubscribe(posts: [first.id]))
            // The unsubscribe is read before the next subscribe, whose answer proves it was handled.
            _ = try await socket.subscribe([])
            try await like(client, first.id, as: users[2])
            try await like(client, second.id, as: users[2])
            // Events are delivered in commit order, so the first one to arrive must be about the second post.
            guard case .liked(let event) = try await socket.next() else {
                Issue.record("expected liked")
                return
            }
            #expect(event.postId == second.id)
        }
    }

    @Test func postsTheUserMayNotSeeYieldNothing() async throws {
        try await withPost { client, port, users, post in
            let dave = try await client.signUp("dave")
            let socket = try await LiveClient.connect(port: port, token: users[1].token)
            defer { socket.close() }
            // The next post's ID does not exist yet: the subscription is refused, and stays refused once it exists.
            let future = post.id + 1
            let (answer, snapshots) = try await socket.subscribe([future, post.id])
            #expect(answer == LiveSubscribed(posts: [post.id], unavailable: [future]))
            #expect(snapshots.map(\.id) == [post.id])
            let unseen = try await client.post("chelsea.jpg", caption: "dave's", as: dave)
            #expect(unseen.id == future)
            try await like(client, unseen.id, as: users[2])
            let _: MakestagramAPI.Comment = try await client.call(
                .post, "/api/v1/posts/\(unseen.id)/comments", as: users[2], json: NewCommentRequest(text: "no"),
                expect: .created)
            try await like(client, post.id, as: users[2])
            // bob follows nobody: dave's post, its like and its comment never reach him; alice's post's like does.
            guard case .liked(let event) = try await socket.next() else {
                Issue.record("expected liked")
                return
            }
            #expect(event.postId == post.id)
        }
    }

    @Test func aStaleVersionIsNeverDeliveredAfterANewerOne() async throws {
        try await withPost { client, port, users, post in
            var likers: [TestUser] = []
            for index in 0..<12 { likers.append(try await client.signUp("liker\(index)")) }
            let watcher = try await LiveClient.connect(port: port, token: users[1].token)
            defer { watcher.close() }
            _ = try await watcher.subscribe([post.id])
            let late = try await LiveClient.connect(port: port, token: users[2].token)
            defer { late.close() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for liker in likers {
                    group.addTask {
                        for round in 0..<10 { try await like(client, post.id, as: liker, round % 2 == 0) }
                    }
                }
                group.addTask {
                    let _: MakestagramAPI.Comment = try await client.call(
                        .post, "/api/v1/posts/\(post.id)/comments", as: users[0], json: NewCommentRequest(text: "x"),
                        expect: .created)
                }
                // One subscriber joins in the middle of the storm.
                _ = try await late.subscribe([post.id])
                try await group.waitForAll()
            }
            // A closing like by alice marks the end: both sockets must see it last, with every version before it smaller.
            try await like(client, post.id, as: users[0])
            let final: Post = try await client.call(.get, "/api/v1/posts/\(post.id)", as: users[1])
            for socket in [watcher, late] {
                var versions: [Int64] = []
                var last: LiveServerMessage
                repeat {
                    last = try await socket.next()
                    if let (postID, version) = last.postVersion, postID == post.id { versions.append(version) }
                } while last.postVersion?.version != final.version
                #expect(versions == versions.sorted() && Set(versions).count == versions.count, "\(versions)")
                guard case .liked(let closing) = last else {
                    Issue.record("expected liked")
                    continue
                }
                #expect(closing.likeCount == final.likeCount && closing.likers == final.likers)
            }
        }
    }

    @Test func commentsAndDeletionsReachSubscribers() async throws {
        try await withPost { client, port, users, post in
            let socket = try await LiveClient.connect(port: port, token: users[1].token)
            defer { socket.close() }
            _ = try await socket.subscribe([post.id])
            let comment: MakestagramAPI.Comment = try await client.call(
                .post, "/api/v1/posts/\(post.id)/comments", as: users[2], json: NewCommentRequest(text: "nice"),
                expect: .created)
            guard case .commentCreated(let created) = try await socket.next() else {
                Issue.record("comment")
                return
            }
            #expect(created.comment == comment && created.commentCount == 1)
            let deleted = try await client.send(.delete, "/api/v1/comments/\(comment.id)", as: users[2])
            #expect(deleted.status == .noContent)
            guard case .commentDeleted(let removed) = try await socket.next() else {
                Issue.record("deleted")
                return
            }
            #expect(removed.commentId == comment.id && removed.commentCount == 0 && removed.version > created.version)
            let gone = try await client.send(.delete, "/api/v1/posts/\(post.id)", as: users[0])
            #expect(gone.status == .noContent)
            guard case .postDeleted(let event) = try await socket.next() else {
                Issue.record("post.deleted")
                return
            }
            #expect(event.postId == post.id && event.version > removed.version)
        }
    }

    @Test func captionEditsReachSubscribers() async throws {
        try await withPost { client, port, users, post in
            let socket = try await LiveClient.connect(port: port, token: users[1].token)
            defer { socket.close() }
            _ = try await socket.subscribe([post.id])
            let edited: Post = try await client.call(
                .patch, "/api/v1/posts/\(post.id)", as: users[0], json: EditPostRequest(caption: "Now with words"))
            guard case .postEdited(let event) = try await socket.next() else {
                Issue.record("post.edited")
                return
            }
            #expect(event.postId == post.id && event.caption == "Now with words" && event.version == edited.version)
            #expect(abs(event.editedAt.timeIntervalSince(try #require(edited.editedAt))) < 0.001)
        }
    }

    @Test func aNewNameReachesEverySocket() async throws {
        try await withPost { client, port, users, post in
            let socket = try await LiveClient.connect(port: port, token: users[2].token)
            defer { socket.close() }
            let _: UserProfile = try await client.call(
                .patch, "/api/v1/me", as: users[0], json: EditProfileRequest(displayName: "Alice Archer"))
            guard case .userUpdated(let user) = try await socket.next() else {
                Issue.record("user.updated")
                return
            }
            #expect(user.id == users[0].profile.id && user.displayName == "Alice Archer")
        }
    }

    @Test func newPostsReachFollowersTimelinesOnly() async throws {
        try await withPost { client, port, users, post in
            let (alice, bob, carol) = (users[0], users[1], users[2])
            let _: FollowState = try await client.call(.put, "/api/v1/users/alice/follow", as: bob)
            let follower = try await LiveClient.connect(port: port, token: bob.token)
            defer { follower.close() }
            let stranger = try await LiveClient.connect(port: port, token: carol.token)
            defer { stranger.close() }
            _ = try await stranger.subscribe([post.id])
            let created = try await client.post("chelsea.jpg", caption: "for followers", as: alice)
            guard case .postCreated(let announced) = try await follower.next() else {
                Issue.record("created")
                return
            }
            let timeline: Page<Post> = try await client.call(.get, "/api/v1/timeline", as: bob)
            #expect(announced == timeline.items.first && announced.id == created.id)
            // carol does not follow alice: the next thing she hears is the like on the post she subscribed to.
            try await like(client, post.id, as: alice)
            guard case .liked(let like) = try await stranger.next() else {
                Issue.record("expected liked")
                return
            }
            #expect(like.postId == post.id)
        }
    }

    @Test func aFollowerRemovedByAPrivateAccountLoadsAgainAndSeesItsPostsNoMore() async throws {
        try await withPost { client, port, users, post in
            let (alice, bob) = (users[0], users[1])
            let _: UserProfile = try await client.call(.patch, "/api/v1/me", as: alice, json: ["isPrivate": true])
            let _: FollowState = try await client.call(.put, "/api/v1/users/alice/follow", as: bob)
            let approved = try await client.send(.post, "/api/v1/me/follow-requests/bob/approve", as: alice)
            #expect(approved.status == .noContent)
            let bobs = try await LiveClient.connect(port: port, token: bob.token)
            let (subscribed, _) = try await bobs.subscribe([post.id])
            #expect(subscribed.posts == [post.id])

            #expect(try await client.send(.delete, "/api/v1/me/followers/bob", as: alice).status == .noContent)
            let frame = try await bobs.closed.value
            #expect(frame?.closeCode == .unknown(LiveCloseCode.resync))
            let again = try await LiveClient.connect(port: port, token: bob.token)
            let (refused, _) = try await again.subscribe([post.id])
            #expect(refused.posts.isEmpty && refused.unavailable == [post.id])
        }
    }

    @Test func loggingOutClosesTheSocket() async throws {
        try await withPost { client, port, users, _ in
            let bob = users[1]
            let socket = try await LiveClient.connect(port: port, token: bob.token)
            let ticket: EventTicket = try await client.call(.post, "/api/v1/events/tickets", as: bob, expect: .created)
            let byTicket = try await LiveClient.connect(port: port, ticket: ticket.ticket)
            let response = try await client.send(.delete, "/api/v1/sessions/current", as: bob)
            #expect(response.status == .noContent)
            for closed in [socket.closed, byTicket.closed] {
                let frame = try await closed.value
                #expect(frame?.closeCode == .unknown(LiveCloseCode.sessionEnded))
            }
        }
    }

    @Test func aSessionEndedFromAnotherOrByAPasswordChangeClosesItsSockets() async throws {
        try await withPost { client, port, users, _ in
            let bob = users[1]
            let login: AuthResponse = try await client.call(
                .post, "/api/v1/sessions", json: LogInRequest(username: bob.profile.username, password: "correct horse")
            )
            let other = TestUser(profile: login.user, token: login.token)
            let socket = try await LiveClient.connect(port: port, token: bob.token)
            let sessions: Page<SessionInfo> = try await client.call(.get, "/api/v1/me/sessions", as: other)
            let first = try #require(sessions.items.first { !$0.current })
            #expect(try await client.send(.delete, "/api/v1/me/sessions/\(first.id)", as: other).status == .noContent)
            #expect(try await socket.closed.value?.closeCode == .unknown(LiveCloseCode.sessionEnded))

            let third: AuthResponse = try await client.call(
                .post, "/api/v1/sessions", json: LogInRequest(username: bob.profile.username, password: "correct horse")
            )
            let thirdSocket = try await LiveClient.connect(port: port, token: third.token)
            let changed: PasswordChanged = try await client.call(
                .post, "/api/v1/me/password", as: other,
                json: ChangePasswordRequest(currentPassword: "correct horse", newPassword: "a much better secret"))
            #expect(changed.endedSessions == 1)
            #expect(try await thirdSocket.closed.value?.closeCode == .unknown(LiveCloseCode.sessionEnded))
        }
    }

    @Test func ticketsAreSingleUseAndTokensStayOutOfURLs() async throws {
        try await withPost { client, port, users, _ in
            let ticket: EventTicket = try await client.call(
                .post, "/api/v1/events/tickets", as: users[1], expect: .created)
            #expect(ticket.expiresAt > Date())
            let socket = try await LiveClient.connect(port: port, ticket: ticket.ticket)
            socket.close()
            // A used ticket opens nothing (the close code is checked in Tests/api/test_live_messages.py).
            let reused = try await client.call(
                .post, "/api/v1/events/tickets", as: users[2], expect: .created, EventTicket.self)
            let first = try await LiveClient.connect(port: port, ticket: reused.ticket)
            first.close()
            await #expect(throws: (any Error).self) { try await LiveClient.connect(port: port, ticket: reused.ticket) }
            let plain = try await client.problem(.get, "/api/v1/events", as: users[1])
            #expect(plain.status == 426)
            let anonymous = try await client.problem(.post, "/api/v1/events/tickets")
            #expect(anonymous.status == 401)
        }
    }

    @Test func badMessagesAndTooManySubscriptionsGetErrors() async throws {
        try await withPost { client, port, users, post in
            let socket = try await LiveClient.connect(port: port, token: users[1].token)
            defer { socket.close() }
            socket.send(.subscribe(posts: Array(1...Int64(LiveProtocol.maxSubscriptions + 2))))
            guard case .error(let error) = try await socket.next() else {
                Issue.record("expected error")
                return
            }
            #expect(error.code == "too_many_subscriptions")
            guard case .subscribed(let answer) = try await socket.next() else {
                Issue.record("subscribed")
                return
            }
            #expect(answer.posts == [post.id] && answer.unavailable.count == LiveProtocol.maxSubscriptions - 1)
            #expect(error.refused == "subscribe" && error.posts?.count == 2)
        }
    }

    /// A refused message names what it left as it was and when to ask again, so a client can keep its idea of its
    /// subscriptions equal to the server's.
    @Test func aRefusalSaysWhatStaysAsItWasAndWhenToAskAgain() async throws {
        try await withPost({ $0.rateLimits.liveWork = RateLimit(3, per: .seconds(60)) }) { client, port, users, post in
            let socket = try await LiveClient.connect(port: port, token: users[1].token)
            defer { socket.close() }
            let (answer, _) = try await socket.subscribe([post.id])  // costs 2 of 3
            #expect(answer.posts == [post.id])
            socket.send(.subscribe(posts: [post.id + 1, post.id, post.id + 2]))  // would cost 3
            guard case .error(let refusedSubscribe) = try await socket.next() else {
                Issue.record("expected an error")
                return
            }
            #expect(refusedSubscribe.code == "rate_limited" && refusedSubscribe.refused == "subscribe")
            #expect(refusedSubscribe.posts == [post.id + 1, post.id + 2])
            #expect((refusedSubscribe.retryAfter ?? 0) >= 1)
            socket.send(.unsubscribe(posts: [post.id + 5]))  // costs the last one
            socket.send(.unsubscribe(posts: [post.id, post.id + 1]))
            guard case .error(let refusedUnsubscribe) = try await socket.next() else {
                Issue.record("expected an error")
                return
            }
            #expect(refusedUnsubscribe.refused == "unsubscribe" && refusedUnsubscribe.posts == [post.id])
        }
    }
}

extension LiveEventsTests {
    @Test func aStalledClientDoesNotHoldUpOthersAndIsClosed() async throws {
        try await withPost({
            $0.liveQueueLimit = 32
            $0.liveCloseGrace = .seconds(1)
        }) { client, port, users, post in
            let stalled = try await StalledClient(port: port, token: users[2].token)
            defer { stalled.close() }
            try await stalled.subscribe(post.id)
            let reader = try await LiveClient.connect(port: port, token: users[1].token)
            defer { reader.close() }
            _ = try await reader.subscribe([post.id])
            // Long comments in four-byte characters: far more than the stalled socket's buffers hold.
            let text = String(repeating: "📷", count: Limits.commentLength.upperBound)
            let comments = 300
            for index in 1...comments {
                let _: MakestagramAPI.Comment = try await client.call(
                    .post, "/api/v1/posts/\(post.id)/comments", as: users[0], json: NewCommentRequest(text: text),
                    expect: .created)
                // The reader gets each comment while the stalled client reads nothing.
                guard case .commentCreated(let event) = try await reader.next() else {
                    Issue.record("expected comment.created")
                    return
                }
                #expect(event.commentCount == index)
            }
            #expect(try await stalled.resumeAndWaitForClose(), "the server should drop a client that fell behind")
            #expect(!stalled.received.contains("\"commentCount\":\(comments)"))
        }
    }
}

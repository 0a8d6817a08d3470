import Foundation
import MakestagramAPI
import MakestagramStore
import Testing

/// The storage contract: every ``Store`` implementation must pass all of these.
@Suite struct StoreContractTests {
    func withStore(_ factory: StoreFactory, _ body: (any Store) async throws -> Void) async throws {
        try await factory.with { made in try await body(made.store) }
    }

    @Test(arguments: StoreFactory.all)
    func usernamesAreUniqueRegardlessOfCase(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            _ = try await store.user("alice")
            await #expect(throws: StoreError.usernameTaken) {
                _ = try await store.createUser(NewUser(username: "alice", displayName: "A", passwordHash: "y"))
            }
            #expect(try await store.credentials(username: "Alice")?.passwordHash == "x")
            // Handles are stored lower-case; the schema refuses anything else outright.
            await #expect(throws: StoreError.self) {
                _ = try await store.createUser(NewUser(username: "Bob", displayName: "B", passwordHash: "x"))
            }
            #expect(try await store.credentials(username: "nobody") == nil)
        }
    }

    @Test(arguments: StoreFactory.all)
    func eventTicketsWorkOnceUntilTheyExpireOrTheSessionEnds(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            let alice = try await store.user("alice")
            let session = [UInt8](repeating: 5, count: 32)
            try await store.createSession(userID: alice, tokenHash: session)
            let later = Date().addingTimeInterval(30)
            try await store.createEventTicket(
                ticketHash: [UInt8](repeating: 1, count: 32), tokenHash: session, expiresAt: later)
            let redeemed = try await store.redeemEventTicket(ticketHash: [UInt8](repeating: 1, count: 32))
            #expect(redeemed?.user.username == "alice" && redeemed?.tokenHash == session)
            #expect(try await store.redeemEventTicket(ticketHash: [UInt8](repeating: 1, count: 32)) == nil)
            try await store.createEventTicket(
                ticketHash: [UInt8](repeating: 2, count: 32), tokenHash: session,
                expiresAt: Date().addingTimeInterval(-1))
            #expect(try await store.redeemEventTicket(ticketHash: [UInt8](repeating: 2, count: 32)) == nil)
            try await store.createEventTicket(
                ticketHash: [UInt8](repeating: 3, count: 32), tokenHash: session, expiresAt: later)
            try await store.deleteSession(tokenHash: session)
            #expect(try await store.redeemEventTicket(ticketHash: [UInt8](repeating: 3, count: 32)) == nil)
        }
    }

    /// The schema keeps the likers preview (a trigger's `LIMIT`); the API, the SDK and the web client read its size
    /// from ``Post/likersPreviewLimit``: they must agree.
    @Test(arguments: StoreFactory.all)
    func theLikersPreviewHoldsThePreviewLimitNewestFirst(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            let author = try await store.user("author")
            let post = try await store.photoPost(by: author)
            var names: [String] = []
            for index in 0..<(Post.likersPreviewLimit + 2) {
                let name = "liker\(index)"
                _ = try await store.setLike(postID: post, viewer: try await store.user(name), liked: true)
                names.insert(name, at: 0)
            }
            let read = try #require(try await store.post(id: post, viewer: author))
            #expect(read.likers == Array(names.prefix(Post.likersPreviewLimit)))
        }
    }

    @Test(arguments: StoreFactory.all)
    func sessionsEndAtOnce(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            let alice = try await store.user("alice")
            let hash = [UInt8](repeating: 7, count: 32)
            try await store.createSession(userID: alice, tokenHash: hash)
            #expect(try await store.sessionUser(tokenHash: hash)?.username == "alice")
            try await store.deleteSession(tokenHash: hash)
            #expect(try await store.sessionUser(tokenHash: hash) == nil)
        }
    }

    @Test(arguments: StoreFactory.all)
    func followsAreIdempotentAndCounted(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            #expect(try await store.setFollow(viewer: bob, username: "alice", following: true).followerCount == 1)
            #expect(try await store.setFollow(viewer: bob, username: "alice", following: true).followerCount == 1)
            let profile = try #require(try await store.profile(username: "alice", viewer: bob))
            #expect(profile.followerCount == 1 && profile.viewerFollows)
            #expect(try await store.profile(id: bob, viewer: alice)?.followingCount == 1)
            #expect(
                try await store.followers(username: "alice", viewer: 0, page: .init(limit: 10))?.items.map(\.username)
                    == ["bob"])
            #expect(
                try await store.following(username: "bob", viewer: 0, page: .init(limit: 10))?.items.map(\.id) == [
                    alice
                ])
            #expect(try await store.setFollow(viewer: bob, username: "alice", following: false).followerCount == 0)
            #expect(try await store.setFollow(viewer: bob, username: "alice", following: false).followerCount == 0)
            await #expect(throws: StoreError.cannotFollowSelf) {
                _ = try await store.setFollow(viewer: bob, username: "bob", following: true)
            }
            await #expect(throws: StoreError.notFound("user")) {
                _ = try await store.setFollow(viewer: bob, username: "nobody", following: true)
            }
            #expect(try await store.followers(username: "nobody", viewer: 0, page: .init(limit: 10)) == nil)
        }
    }

    @Test(arguments: StoreFactory.all)
    func timelineHoldsOwnAndFollowedPostsOnly(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let carol = try await store.user("carol")
            let early = try await store.photoPost(by: carol)
            let own = try await store.photoPost(by: alice)
            let bobs = try await store.photoPost(by: bob)
            #expect(try await store.allTimeline(alice, pageSize: 10) == [own])
            _ = try await store.setFollow(viewer: alice, username: "bob", following: true)
            _ = try await store.setFollow(viewer: alice, username: "carol", following: true)
            // Following brings the followee's earlier posts in, newest first.
            #expect(try await store.allTimeline(alice, pageSize: 10) == [bobs, own, early])
            let later = try await store.photoPost(by: bob)
            #expect(try await store.allTimeline(alice, pageSize: 10) == [later, bobs, own, early])
            _ = try await store.setFollow(viewer: alice, username: "bob", following: false)
            #expect(try await store.allTimeline(alice, pageSize: 10) == [own, early])
            #expect(
                try await store.posts(username: "bob", viewer: alice, page: .init(limit: 10))?.items.map(\.id) == [
                    later, bobs,
                ])
            #expect(try await store.posts(username: "nobody", viewer: alice, page: .init(limit: 10)) == nil)
            #expect(try await store.profile(username: "bob", viewer: alice)?.postCount == 2)
        }
    }

    @Test(arguments: StoreFactory.all)
    func pagesNeverRepeatOrSkipWhenPostsComeAndGo(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            let alice = try await store.user("alice")
            var posts: [Int64] = []
            for index in 0..<25 { posts.append(try await store.photoPost(by: alice, caption: "\(index)")) }
            let first = try await store.timeline(viewer: alice, page: .init(limit: 10))
            #expect(first.items.map(\.id) == Array(posts.reversed().prefix(10)))
            // New posts on top and a deleted post on the next page do not shift what the next page returns.
            let newer = [try await store.photoPost(by: alice), try await store.photoPost(by: alice)]
            _ = try await store.deletePost(id: posts[12], viewer: alice)
            let second = try await store.timeline(
                viewer: alice, page: .init(position: .after(try #require(first.nextKey)), limit: 10))
            let expected = Array(posts.reversed().dropFirst(10).filter { $0 != posts[12] }.prefix(10))
            #expect(second.items.map(\.id) == expected)
            // Pull to refresh: only what is newer than the top the client has, repeated until there is no more.
            let refresh = try await store.timeline(
                viewer: alice, page: .init(position: .newerThan(try #require(first.newestKey)), limit: 1))
            #expect(refresh.items.map(\.id) == [newer[0]])
            let refresh2 = try await store.timeline(
                viewer: alice, page: .init(position: .newerThan(try #require(refresh.newestKey)), limit: 1))
            #expect(refresh2.items.map(\.id) == [newer[1]])
            let refresh3 = try await store.timeline(
                viewer: alice, page: .init(position: .newerThan(try #require(refresh2.newestKey)), limit: 5))
            #expect(refresh3.items.isEmpty && refresh3.newestKey == newer[1])
        }
    }

    @Test(arguments: StoreFactory.all)
    func likesAreIdempotentExactAndViewerSpecific(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let carol = try await store.user("carol")
            let post = try await store.photoPost(by: alice)
            let first = try await store.setLike(postID: post, viewer: bob, liked: true)
            #expect(first.likeCount == 1 && first.viewerHasLiked && first.likers == ["bob"])
            // Liking again changes nothing, not even the version.
            #expect(try await store.setLike(postID: post, viewer: bob, liked: true) == first)
            _ = try await store.setLike(postID: post, viewer: carol, liked: true)
            let seenByAlice = try #require(try await store.post(id: post, viewer: alice))
            #expect(
                seenByAlice.likeCount == 2 && !seenByAlice.viewerHasLiked && seenByAlice.likers == ["carol", "bob"])
            #expect(try await store.post(id: post, viewer: bob)?.viewerHasLiked == true)
            #expect(
                try await store.likers(postID: post, viewer: 0, page: .init(limit: 1))?.items.map(\.username) == [
                    "carol"
                ])
            let unliked = try await store.setLike(postID: post, viewer: bob, liked: false)
            #expect(unliked.likeCount == 1 && !unliked.viewerHasLiked && unliked.likers == ["carol"])
            #expect(unliked.version > first.version)
            #expect(try await store.setLike(postID: post, viewer: bob, liked: false).likeCount == 1)
            await #expect(throws: StoreError.notFound("post")) {
                _ = try await store.setLike(postID: 999, viewer: bob, liked: true)
            }
            #expect(try await store.likers(postID: 999, viewer: 0, page: .init(limit: 1)) == nil)
        }
    }

    @Test(arguments: StoreFactory.all)
    func concurrentLikeTogglesLeaveExactCounts(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            let author = try await store.user("author")
            let post = try await store.photoPost(by: author)
            var users: [Int64] = []
            for index in 0..<64 { users.append(try await store.user("user\(index)")) }
            let finals = try await withThrowingTaskGroup(of: Bool.self) { group in
                for user in users {
                    group.addTask {
                        var liked = false
                        for _ in 0..<10 {
                            liked = Bool.random()
                            _ = try await store.setLike(postID: post, viewer: user, liked: liked)
                        }
                        return liked
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            let likes = finals.filter { $0 }.count
            #expect(try await store.post(id: post, viewer: author)?.likeCount == likes)
            #expect(try await store.likers(postID: post, viewer: 0, page: .init(limit: 100))?.items.count == likes)
        }
    }

    @Test(arguments: StoreFactory.all)
    func everyPostReadCarriesItsNewestCommentsOldestFirst(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let quiet = try await store.photoPost(by: alice)
            let busy = try await store.photoPost(by: alice)
            var comments: [MakestagramAPI.Comment] = []
            for text in ["one", "two", "three"] {
                comments.append(try await store.addComment(postID: busy, author: bob, text: text))
            }
            let newest = comments.suffix(Post.recentCommentsLimit).map(\.id)
            #expect(try await store.post(id: busy, viewer: bob)?.recentComments.map(\.id) == newest)
            #expect(try await store.post(id: quiet, viewer: bob)?.recentComments == [])
            let listed = try await store.posts(ids: [quiet, busy], viewer: bob)
            #expect(listed.first { $0.id == busy }?.recentComments.map(\.text) == ["two", "three"])
            let timeline = try await store.timeline(viewer: alice, page: .init(limit: 10))
            #expect(timeline.items.map(\.recentComments.count) == [2, 0])
            try await store.deleteComment(id: comments[2].id, viewer: bob)
            let after = try #require(try await store.post(id: busy, viewer: alice))
            #expect(after.recentComments.map(\.text) == ["one", "two"] && after.commentCount == 2)
            #expect(after.recentComments.first?.author.username == "bob")
        }
    }

    @Test(arguments: StoreFactory.all)
    func commentsAreCountedAndDeletableByTheirAuthorOrThePostAuthor(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let carol = try await store.user("carol")
            let post = try await store.photoPost(by: alice)
            let first = try await store.addComment(postID: post, author: bob, text: "first")
            let second = try await store.addComment(postID: post, author: carol, text: "second")
            #expect(try await store.post(id: post, viewer: bob)?.commentCount == 2)
            let page = try #require(try await store.comments(postID: post, viewer: 0, page: .init(limit: 1)))
            #expect(page.items.map(\.text) == ["first"])
            let rest = try await store.comments(
                postID: post, viewer: 0, page: .init(position: .after(try #require(page.nextKey)), limit: 5))
            #expect(rest?.items.map(\.id) == [second.id])
            #expect(try await store.postOfComment(second.id) == post)
            #expect(try await store.comment(id: second.id, viewer: 0)?.text == "second")
            #expect(try await store.comment(id: second.id, viewer: bob)?.author.id == carol)
            _ = try await store.setBlock(viewer: carol, username: "bob", blocking: true)
            #expect(try await store.comment(id: second.id, viewer: bob) == nil, "its writer blocks bob")
            _ = try await store.setBlock(viewer: carol, username: "bob", blocking: false)
            await #expect(throws: StoreError.forbidden) { try await store.deleteComment(id: first.id, viewer: carol) }
            try await store.deleteComment(id: first.id, viewer: bob)
            #expect(try await store.postOfComment(first.id) == nil)
            try await store.deleteComment(id: second.id, viewer: alice)
            #expect(try await store.post(id: post, viewer: bob)?.commentCount == 0)
            await #expect(throws: StoreError.notFound("comment")) {
                try await store.deleteComment(id: first.id, viewer: bob)
            }
            await #expect(throws: StoreError.notFound("post")) {
                _ = try await store.addComment(postID: 999, author: bob, text: "x")
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func reportsOncePerUserNeverOwnPost(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let post = try await store.photoPost(by: alice)
            try await store.report(postID: post, reporter: bob, reason: "spam")
            await #expect(throws: StoreError.alreadyReported) {
                try await store.report(postID: post, reporter: bob, reason: "spam")
            }
            await #expect(throws: StoreError.cannotReportOwnPost) {
                try await store.report(postID: post, reporter: alice, reason: "x")
            }
            #expect(try await store.reportCount(postID: post) == 1)
        }
    }

    @Test(arguments: StoreFactory.all)
    func deletingAPostTakesEverythingWithIt(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            _ = try await store.setFollow(viewer: bob, username: "alice", following: true)
            let post = try await store.photoPost(by: alice)
            _ = try await store.setLike(postID: post, viewer: bob, liked: true)
            _ = try await store.addComment(postID: post, author: bob, text: "hi")
            try await store.report(postID: post, reporter: bob, reason: "spam")
            let before = try await store.referencedMediaFiles().names
            #expect(before.count == 2)
            await #expect(throws: StoreError.forbidden) { _ = try await store.deletePost(id: post, viewer: bob) }
            #expect(try await store.post(id: post, viewer: bob) != nil)
            let files = try await store.deletePost(id: post, viewer: alice)
            #expect(Set(files) == before)
            #expect(try await store.post(id: post, viewer: bob) == nil)
            #expect(try await store.allTimeline(bob, pageSize: 10).isEmpty)
            #expect(try await store.referencedMediaFiles().names.isEmpty)
            #expect(try await store.profile(id: alice, viewer: alice)?.postCount == 0)
            await #expect(throws: StoreError.notFound("post")) {
                _ = try await store.deletePost(id: post, viewer: alice)
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func onlyTheAuthorEditsACaptionAndEveryReadSeesIt(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            _ = try await store.setFollow(viewer: bob, username: "alice", following: true)
            let post = try await store.photoPost(by: alice)
            _ = try await store.setLike(postID: post, viewer: bob, liked: true)
            // Read first, so that a store keeping the timeline in memory holds the old version.
            let before = try #require(try await store.timeline(viewer: bob, page: PageRequest(limit: 10)).items.first)
            #expect(before.editedAt == nil)
            await #expect(throws: StoreError.forbidden) {
                _ = try await store.editCaption(postID: post, viewer: bob, caption: "mine now")
            }
            await #expect(throws: StoreError.notFound("post")) {
                _ = try await store.editCaption(postID: post + 1000, viewer: alice, caption: "x")
            }
            let edited = try await store.editCaption(postID: post, viewer: alice, caption: "Sunset, not sunrise")
            #expect(edited.caption == "Sunset, not sunrise" && edited.version > before.version)
            let editedAt = try #require(edited.editedAt)
            #expect(edited.likeCount == 1 && edited.likers == ["bob"])
            let seen = try #require(try await store.timeline(viewer: bob, page: PageRequest(limit: 10)).items.first)
            #expect(seen.caption == "Sunset, not sunrise" && seen.version == edited.version && seen.viewerHasLiked)
            #expect(seen.editedAt.map { abs($0.timeIntervalSince(editedAt)) < 0.001 } == true)
            #expect(try await store.post(id: post, viewer: bob)?.caption == "Sunset, not sunrise")
            // The same caption again changes nothing; an empty one removes it.
            let again = try await store.editCaption(postID: post, viewer: alice, caption: "Sunset, not sunrise")
            #expect(again.version == edited.version)
            let cleared = try await store.editCaption(postID: post, viewer: alice, caption: "")
            #expect(cleared.caption.isEmpty && cleared.version > edited.version)
        }
    }

    @Test(arguments: StoreFactory.all)
    func aNewNameAndAvatarShowEverywhereTheUserAppears(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            _ = try await store.setFollow(viewer: bob, username: "alice", following: true)
            let post = try await store.photoPost(by: alice)
            _ = try await store.addComment(postID: post, author: alice, text: "first")
            let token = [UInt8](repeating: 3, count: 32)
            try await store.createSession(userID: alice, tokenHash: token)
            // Read first, so that stores keeping sessions and timelines in memory hold the old name.
            #expect(try await store.sessionUser(tokenHash: token)?.displayName == "Alice")
            _ = try await store.timeline(viewer: bob, page: PageRequest(limit: 10))
            let epoch = store.renderEpoch

            let named = try await store.updateProfile(userID: alice, displayName: "Alice Archer", bio: "Line\nTwo")
            #expect(named.displayName == "Alice Archer" && named.bio == "Line\nTwo" && named.avatarURL == nil)
            #expect(store.renderEpoch > epoch)
            #expect(try await store.sessionUser(tokenHash: token)?.displayName == "Alice Archer")
            let bioOnly = try await store.updateProfile(userID: alice, displayName: nil, bio: "")
            #expect(bioOnly.displayName == "Alice Archer" && bioOnly.bio.isEmpty)

            let first = AvatarFiles(small: "a1s.jpg", large: "a1l.jpg")
            let (withAvatar, noneReplaced) = try await store.setAvatar(userID: alice, files: first)
            #expect(noneReplaced.isEmpty)
            #expect(withAvatar.avatarURL == "/media/a1s.jpg" && withAvatar.avatarLargeURL == "/media/a1l.jpg")
            #expect(try await store.referencedMediaFiles().names.isSuperset(of: ["a1s.jpg", "a1l.jpg"]))
            let seen = try #require(try await store.timeline(viewer: bob, page: PageRequest(limit: 10)).items.first)
            #expect(seen.author.displayName == "Alice Archer" && seen.author.avatarURL == "/media/a1s.jpg")
            #expect(seen.recentComments.first?.author.displayName == "Alice Archer")
            #expect(
                try await store.comments(postID: post, viewer: 0, page: PageRequest(limit: 5))?.items.first?.author
                    == seen.author)
            #expect(try await store.profile(username: "alice", viewer: bob)?.avatarLargeURL == "/media/a1l.jpg")

            let (replacedBy, replaced) = try await store.setAvatar(
                userID: alice, files: AvatarFiles(small: "a2s.jpg", large: "a2l.jpg"))
            #expect(Set(replaced) == ["a1s.jpg", "a1l.jpg"] && replacedBy.avatarURL == "/media/a2s.jpg")
            let (removed, last) = try await store.setAvatar(userID: alice, files: nil)
            #expect(Set(last) == ["a2s.jpg", "a2l.jpg"] && removed.avatarURL == nil && removed.avatarLargeURL == nil)
            #expect(try await store.referencedMediaFiles().names.intersection(["a2s.jpg", "a2l.jpg"]).isEmpty)
            #expect(try await store.sessionUser(tokenHash: token)?.avatarURL == nil)
        }
    }

    @Test(arguments: StoreFactory.all)
    func aDataExportHoldsTheUsersPostsCommentsAndFollows(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let carol = try await store.user("carol")
            let first = try await store.photoPost(by: alice, caption: "one")
            let second = try await store.photoPost(by: alice, caption: "two")
            let bobs = try await store.photoPost(by: bob)
            _ = try await store.setLike(postID: first, viewer: bob, liked: true)
            let comment = try await store.addComment(postID: bobs, author: alice, text: "nice")
            _ = try await store.addComment(postID: first, author: bob, text: "not alice's comment")
            for followee in ["carol", "bob"] {
                _ = try await store.setFollow(viewer: alice, username: followee, following: true)
            }
            _ = try await store.setFollow(viewer: carol, username: "alice", following: true)
            _ = try await store.setAltText(postID: second, viewer: alice, photo: 0, altText: "Two cats")

            let export = try #require(try await store.dataExport(userID: alice))
            #expect(export.posts.map(\.altText) == [nil, "Two cats"])
            #expect(export.profile.username == "alice" && export.avatarFile == nil)
            #expect(export.posts.map(\.id) == [first, second] && export.posts.map(\.caption) == ["one", "two"])
            #expect(export.posts.map(\.likeCount) == [1, 0] && export.posts.map(\.commentCount) == [1, 0])
            #expect(export.comments.map(\.id) == [comment.id] && export.comments.first?.postId == bobs)
            #expect(export.following == ["carol", "bob"] && export.followers == ["carol"])
            #expect(try await store.dataExport(userID: 999_999) == nil)
        }
    }

    @Test(arguments: StoreFactory.all)
    func searchFindsNamesAnywhereRankedAndFolded(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            func named(_ username: String, _ displayName: String) async throws -> Int64 {
                try await store.createUser(NewUser(username: username, displayName: displayName, passwordHash: "x")).id
            }
            let viewer = try await named("viewer", "Viewer")
            _ = try await named("archer", "Archie")
            let alice = try await named("alice", "Alice Archer")
            _ = try await named("archeress", "Quinn")
            _ = try await named("marcher", "M")
            _ = try await named("zoe", "Zoë Marcheron")
            _ = try await named("elo", "Élodie")
            _ = try await named("a_b", "Underscore")
            _ = try await named("axb", "Cross")
            _ = try await named("deals", "50% Off")
            _ = try await named("other", "500 Off")
            _ = try await store.setFollow(viewer: viewer, username: "archeress", following: true)
            _ = try await store.setFollow(viewer: viewer, username: "zoe", following: true)
            func search(_ query: String, limit: Int = 20) async throws -> [String] {
                try await store.searchUsers(query: query, viewer: viewer, limit: limit).map(\.username)
            }
            // Exact, then a username or a word of the name that starts with it, then anywhere; followed first.
            #expect(try await search("archer") == ["archer", "archeress", "alice", "zoe", "marcher"])
            #expect(try await search("ARCHÉR") == ["archer", "archeress", "alice", "zoe", "marcher"])
            #expect(try await search("ice arch") == ["alice"])
            #expect(try await search("archer", limit: 2) == ["archer", "archeress"])
            #expect(try await search("elodie") == ["elo"])
            #expect(try await search("ÉLOD") == ["elo"])
            #expect(try await search("Ｅｌｏｄ") == ["elo"])
            // Pattern characters are literal.
            #expect(try await search("a_b") == ["a_b"])
            #expect(try await search("50%") == ["deals"])
            #expect(try await search("*") == [])
            #expect(try await search("[a]b") == [])
            // Two characters anywhere, ranked the same way ("ob" finds bob, "ie" Élodie and Archie).
            #expect(try await search("al") == ["alice", "deals"])
            #expect(try await search("ar") == ["archeress", "alice", "archer", "zoe", "marcher"])
            #expect(try await search("a_") == ["a_b"])
            #expect(try await search("ie") == ["elo", "archer", "viewer"])
            #expect(try await search("IÉ") == ["elo", "archer", "viewer"])
            #expect(try await search("rq") == [], "no pair across the username and the name")
            // One character: usernames that start with it.
            #expect(try await search("z") == ["zoe"])
            #expect(try await search("e") == ["elo"])
            #expect(try await search("rc").contains("alice"))
            // A new name is found at once, the old one no more.
            _ = try await store.updateProfile(userID: alice, displayName: "Alice Smith", bio: nil)
            #expect(try await !search("rc").contains("alice"))
            #expect(try await search("mi").contains("alice"))
            #expect(try await search("archer") == ["archer", "archeress", "zoe", "marcher"])
            #expect(try await search("smith") == ["alice"])
        }
    }

    @Test(arguments: StoreFactory.all)
    func suggestionsAreFriendsOfFriendsThenPopular(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            let viewer = try await store.user("viewer")
            var ids: [Int64] = []
            for name in ["bea", "cat", "dan", "eve", "fay", "gus", "hal"] { ids.append(try await store.user(name)) }
            let (bea, cat, dan, eve, fay, gus, hal) = (ids[0], ids[1], ids[2], ids[3], ids[4], ids[5], ids[6])
            for followee in ["bea", "eve"] {
                _ = try await store.setFollow(viewer: viewer, username: followee, following: true)
            }
            for (follower, followee) in [(bea, "cat"), (bea, "dan"), (eve, "cat"), (eve, "viewer"), (gus, "hal")] {
                _ = try await store.setFollow(viewer: follower, username: followee, following: true)
            }
            for follower in [cat, dan, gus, hal] {
                _ = try await store.setFollow(viewer: follower, username: "fay", following: true)
            }
            func suggested(_ related: Int64? = nil, limit: Int = 4) async throws -> [String] {
                try await store.suggestedUsers(viewer: viewer, related: related, limit: limit).map(\.username)
            }
            // cat is followed by two of those the viewer follows, dan by one; then the most followed.
            #expect(try await suggested() == ["cat", "dan", "fay", "hal"])
            #expect(try await suggested(limit: 1) == ["cat"])
            // On gus's profile, whom gus follows comes first (the more followed first), and gus is not suggested to follow gus.
            #expect(try await suggested(gus) == ["fay", "hal", "cat", "dan"])
            #expect(try await store.followed(by: viewer, among: [bea, cat, eve, fay, viewer]) == [bea, eve])
            #expect(try await store.followed(by: viewer, among: []) == [])
        }
    }

    @Test(arguments: StoreFactory.all)
    func aJobRunsAloneUntilItEndsHoweverItEnds(factory: StoreFactory) async throws {
        try await withStore(factory) { store in
            let (holder, release) = await store.holding("media sweep")
            let twice = try await store.runAlone("media sweep") { Issue.record("the job ran twice at once") }
            #expect(!twice)
            let other = try await store.runAlone("variant backfill") {}
            #expect(other, "another job is not held up")
            release()
            #expect(try await holder.value)
            let again = try await store.runAlone("media sweep") {}
            #expect(again)
            struct Failed: Error {}
            await #expect(throws: Failed.self) {
                _ = try await store.runAlone("media sweep") { throw Failed() }
            }
            let afterFailure = try await store.runAlone("media sweep") {}
            #expect(afterFailure, "a job that failed is not claimed any more")
        }
    }
}

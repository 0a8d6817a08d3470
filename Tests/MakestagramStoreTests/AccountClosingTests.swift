import Foundation
import MakestagramAPI
import MakestagramStore
import Testing

/// A random little community, kept beside the store as the rows it should hold, so that every count the store shows
/// can be checked against the rows it counts.
struct Community {
    struct Comment: Hashable {
        var id: Int64
        var post: Int64
        var author: Int64
    }

    var users: [String: Int64] = [:]
    var follows: Set<[Int64]> = []
    /// Post → author.
    var posts: [Int64: Int64] = [:]
    /// [post, user].
    var likes: Set<[Int64]> = []
    var comments: Set<Comment> = []

    func name(of id: Int64) -> String { users.first { $0.value == id }!.key }

    static func seed(_ store: any Store, random: inout SeededGenerator) async throws -> Community {
        var community = Community()
        for index in 0..<7 { community.users["user\(index)"] = try await store.user("user\(index)") }
        let ids = community.users.values.sorted()
        for follower in ids {
            for followee in ids where followee != follower && Int.random(in: 0..<3, using: &random) == 0 {
                _ = try await store.setFollow(
                    viewer: follower, username: community.name(of: followee), following: true)
                community.follows.insert([follower, followee])
            }
        }
        for author in ids {
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                community.posts[try await store.photoPost(by: author, caption: "#tag by \(author)")] = author
            }
        }
        for post in community.posts.keys.sorted() {
            for user in ids {
                if Int.random(in: 0..<2, using: &random) == 0 {
                    _ = try await store.setLike(postID: post, viewer: user, liked: true)
                    community.likes.insert([post, user])
                }
                if Int.random(in: 0..<4, using: &random) == 0 {
                    let comment = try await store.addComment(postID: post, author: user, text: "hi")
                    community.comments.insert(Comment(id: comment.id, post: post, author: user))
                }
                if community.posts[post] != user, Int.random(in: 0..<5, using: &random) == 0 {
                    try await store.report(postID: post, reporter: user, reason: "spam")
                }
            }
        }
        return community
    }

    /// The community without `user` and everything they made or did.
    func removing(_ user: Int64) -> Community {
        var rest = self
        rest.users = users.filter { $0.value != user }
        rest.follows = follows.filter { !$0.contains(user) }
        let theirs = Set(posts.filter { $0.value == user }.keys)
        rest.posts = posts.filter { $0.value != user }
        rest.likes = likes.filter { $0[1] != user && !theirs.contains($0[0]) }
        rest.comments = comments.filter { $0.author != user && !theirs.contains($0.post) }
        return rest
    }

    /// Checks every count and list the store shows against the rows: `hidden` users (suspended) still have their
    /// rows counted, but nothing of theirs is shown, no likers preview names them, and their posts take no like,
    /// comment or report.
    func check(_ store: any Store, hidden: Set<Int64> = []) async throws {
        let page = PageRequest(limit: 100)
        let hiddenNames = Set(hidden.map(name(of:)))
        let someone = users.values.sorted().first { !hidden.contains($0) }
        for (name, id) in users {
            let profile = try await store.profile(id: id, viewer: id)
            if hidden.contains(id) {
                #expect(profile == nil, "a hidden user's profile is not shown")
                #expect(try await store.profile(username: name, viewer: 0) == nil)
                continue
            }
            let shown = try #require(profile, "\(name)'s profile")
            #expect(shown.postCount == posts.values.filter { $0 == id }.count, "\(name)'s post count")
            #expect(shown.followerCount == follows.filter { $0[1] == id }.count, "\(name)'s follower count")
            #expect(shown.followingCount == follows.filter { $0[0] == id }.count, "\(name)'s following count")
            let seen = Set(posts.filter { $0.value == id || follows.contains([id, $0.value]) }.keys)
                .filter { !hidden.contains(posts[$0]!) }
            #expect(Set(try await store.allTimeline(id, pageSize: 4)) == seen, "\(name)'s timeline")
            // As the server lists it, holding every post already rendered: the list itself leaves hidden posts out.
            let listed = try await store.timeline(viewer: id, page: page, known: { _, _ in true })
            #expect(Set(listed.items.map(\.id)) == seen, "\(name)'s timeline listed")
            let followers = try #require(try await store.followers(username: name, viewer: 0, page: page))
            #expect(
                Set(followers.items.map(\.id))
                    == Set(follows.filter { $0[1] == id && !hidden.contains($0[0]) }.map { $0[0] }))
        }
        for (post, author) in posts {
            let read = try await store.post(id: post, viewer: author)
            if hidden.contains(author) {
                #expect(read == nil, "a hidden user's post is not shown")
                #expect(try await store.likers(postID: post, viewer: 0, page: page) == nil, "nor its likers")
                #expect(try await store.comments(postID: post, viewer: 0, page: page) == nil, "nor its comments")
                if let someone {
                    for liked in [true, false] {
                        await #expect(throws: StoreError.notFound("post"), "nor liked or unliked") {
                            _ = try await store.setLike(postID: post, viewer: someone, liked: liked)
                        }
                    }
                    await #expect(throws: StoreError.notFound("post"), "nor commented on") {
                        _ = try await store.addComment(postID: post, author: someone, text: "hello?")
                    }
                    await #expect(throws: StoreError.notFound("post"), "nor reported") {
                        try await store.report(postID: post, reporter: someone, reason: "spam")
                    }
                }
                continue
            }
            let shown = try #require(read, "post \(post)")
            #expect(shown.likers.allSatisfy { !hiddenNames.contains($0) }, "post \(post)'s likers preview")
            #expect(shown.likeCount == likes.filter { $0[0] == post }.count, "post \(post)'s like count")
            #expect(shown.commentCount == comments.filter { $0.post == post }.count, "post \(post)'s comment count")
            let likers = try #require(try await store.likers(postID: post, viewer: 0, page: page))
            #expect(
                Set(likers.items.map(\.id))
                    == Set(likes.filter { $0[0] == post && !hidden.contains($0[1]) }.map { $0[1] }))
            let listed = try #require(try await store.comments(postID: post, viewer: 0, page: page))
            #expect(
                Set(listed.items.map(\.id))
                    == Set(comments.filter { $0.post == post && !hidden.contains($0.author) }.map(\.id)))
        }
    }
}

/// Closing accounts: deleting one's own, and moderators' suspensions, with every count kept equal to its rows.
@Suite struct AccountClosingTests {
    @Test(arguments: StoreFactory.all, [UInt64(1), 2, 3])
    func deletingAnyUserLeavesEveryCountEqualToTheRowsItCounts(factory: StoreFactory, seed: UInt64) async throws {
        try await factory.with { made in
            let store = made.store
            var random = SeededGenerator(seed: seed)
            let community = try await Community.seed(store, random: &random)
            let name = community.users.keys.sorted().randomElement(using: &random)!
            let leaving = community.users[name]!
            try await store.createSession(userID: leaving, tokenHash: [UInt8](repeating: 9, count: 32))
            let files = try await store.referencedMediaFiles().names

            try await store.beginAccountDeletion(userID: leaving, reserveUsernameUntil: Date().addingTimeInterval(60))
            // Hidden at once, before a single row goes.
            #expect(try await store.profile(id: leaving, viewer: leaving) == nil)
            #expect(try await store.credentials(username: name) == nil)
            #expect(try await store.sessionUser(tokenHash: [UInt8](repeating: 9, count: 32)) == nil)
            for (post, author) in community.posts where author == leaving {
                #expect(try await store.post(id: post, viewer: author) == nil)
            }
            #expect(try await store.accountsBeingDeleted() == [leaving])

            var batches = 0
            var removed: [String] = []
            while true {
                let step = try await store.continueAccountDeletion(userID: leaving, limit: 5)
                removed += step.files
                batches += 1
                if step.finished { break }
                try #require(batches < 500, "deletion ends")
            }
            let rest = community.removing(leaving)
            try await rest.check(store)
            #expect(try await store.accountsBeingDeleted().isEmpty)
            #expect(
                Set(removed) == files.subtracting(try await store.referencedMediaFiles().names), "every file named once"
            )
            await #expect(throws: StoreError.usernameTaken, "the username stays reserved") {
                _ = try await store.createUser(NewUser(username: name, displayName: "Other", passwordHash: "x"))
            }
            // Finishing again changes nothing.
            #expect(try await store.continueAccountDeletion(userID: leaving, limit: 5).finished)
        }
    }

    @Test(arguments: StoreFactory.all)
    func aReservedUsernameIsFreeOnceTheReservationEnds(factory: StoreFactory) async throws {
        try await factory.with { made in
            let store = made.store
            let alice = try await store.user("alice")
            try await store.beginAccountDeletion(userID: alice, reserveUsernameUntil: Date().addingTimeInterval(-1))
            while try await !store.continueAccountDeletion(userID: alice, limit: 100).finished {}
            #expect(try await store.user("alice") != alice)
        }
    }

    @Test(arguments: StoreFactory.all, [UInt64(4), 5])
    func suspendingAnyUserHidesThemAndKeepsEveryCountExact(factory: StoreFactory, seed: UInt64) async throws {
        let sink = RecordingSink()
        try await factory.with(sink) { made in
            let store = made.store
            var random = SeededGenerator(seed: seed)
            var community = try await Community.seed(store, random: &random)
            let moderator = try await store.user("moderator")
            try await store.setModerator(username: "moderator", moderator: true, by: nil)
            let name = community.users.keys.sorted().randomElement(using: &random)!
            let suspended = community.users[name]!
            let token = [UInt8](repeating: 3, count: 32)
            try await store.createSession(userID: suspended, tokenHash: token)
            try await made.settle()
            _ = sink.take()

            try await store.setSuspended(username: name, suspended: true, moderator: moderator, reason: "spam")
            try await made.settle()
            // The suspension, its log-out, and the unread counts of those whose activity it withdrew.
            #expect(
                sink.take().filter { if case .activityChanged = $0 { false } else { true } } == [
                    .userRemoved(user: suspended, username: name, status: .suspended), .sessionEnded(tokenHash: token),
                ])
            try await community.check(store, hidden: [suspended])
            #expect(try await store.credentials(username: name)?.status == .suspended)
            #expect(try await store.sessionUser(tokenHash: token) == nil)
            #expect(try await store.searchUsers(query: name, viewer: moderator, limit: 10).isEmpty)
            // An account deleted meanwhile takes back its likes and comments on the suspended author's posts too.
            if let leaving = community.users.values.sorted().first(where: { user in
                user != suspended && community.likes.contains { $0[1] == user && community.posts[$0[0]] == suspended }
            }) {
                try await store.beginAccountDeletion(userID: leaving, reserveUsernameUntil: Date())
                while try await !store.continueAccountDeletion(userID: leaving, limit: 3).finished {}
                community = community.removing(leaving)
                try await made.settle()
                _ = sink.take()
                try await community.check(store, hidden: [suspended])
            }
            // Once is enough: suspending again is not logged again.
            try await store.setSuspended(username: name, suspended: true, moderator: moderator, reason: "again")

            var unread: [Int64: Int] = [:]
            for user in community.users.values { unread[user] = try await store.unreadActivityCount(userID: user) }
            try await store.setSuspended(username: name, suspended: false, moderator: moderator, reason: "")
            try await made.settle()
            // Its activity comes back as read: open lists reload, and nobody's unread count changes.
            let events = sink.take()
            #expect(events.first == .userRestored(user: suspended, username: name))
            for case .activityChanged(let user, let count) in events.dropFirst() {
                #expect(count == unread[user], "user \(user)'s unread count")
            }
            #expect(events.dropFirst().allSatisfy { if case .activityChanged = $0 { true } else { false } })
            try await community.check(store)
            #expect(try await store.credentials(username: name)?.status == .active)
            let log = try await store.moderationLog(page: PageRequest(limit: 10)).items
            #expect(log.map(\.kind) == [.liftSuspension, .suspend, .grantModerator])
            #expect(log[1].username == name && log[1].moderator == "moderator" && log[1].reason == "spam")
            #expect(log[2].moderator == nil, "granted by the server's operator")
        }
    }

    @Test(arguments: StoreFactory.all)
    func moderatorsCannotBeSuspendedNorSuspendThemselves(factory: StoreFactory) async throws {
        try await factory.with { made in
            let store = made.store
            let first = try await store.user("first")
            _ = try await store.user("second")
            try await store.setModerator(username: "first", moderator: true, by: nil)
            try await store.setModerator(username: "second", moderator: true, by: first)
            #expect(try await store.isModerator(userID: first))
            await #expect(throws: StoreError.forbidden) {
                try await store.setSuspended(username: "first", suspended: true, moderator: first, reason: "")
            }
            await #expect(throws: StoreError.forbidden) {
                try await store.setSuspended(username: "second", suspended: true, moderator: first, reason: "")
            }
            await #expect(throws: StoreError.notFound("user")) {
                try await store.setSuspended(username: "nobody", suspended: true, moderator: first, reason: "")
            }
            await #expect(throws: StoreError.notFound("user")) {
                try await store.setModerator(username: "nobody", moderator: true, by: nil)
            }
            try await store.setModerator(username: "second", moderator: false, by: first)
            #expect(
                try await !store.isModerator(
                    userID: try #require(try await store.profile(username: "second", viewer: 0)).id))
        }
    }

    @Test(arguments: StoreFactory.all)
    func theReportsQueueListsWaitingReportsOldestFirstUntilAModeratorActs(factory: StoreFactory) async throws {
        try await factory.with { made in
            let store = made.store
            let moderator = try await store.user("moderator")
            let author = try await store.user("author")
            let troll = try await store.user("troll")
            let quiet = try await store.photoPost(by: author, caption: "first reported")
            let loud = try await store.photoPost(by: troll, caption: "reported thrice")
            let other = try await store.photoPost(by: troll, caption: "reported once")
            var reporters: [Int64] = []
            for index in 0..<3 { reporters.append(try await store.user("reporter\(index)")) }
            try await store.report(postID: quiet, reporter: reporters[0], reason: "not sure")
            for (index, reporter) in reporters.enumerated() {
                try await store.report(postID: loud, reporter: reporter, reason: "reason \(index)")
            }
            try await store.report(postID: other, reporter: reporters[1], reason: "also")

            let queue = try await store.reportQueue(viewer: moderator, page: PageRequest(limit: 2))
            #expect(queue.items.map(\.post.id) == [quiet, loud])
            #expect(queue.items[1].reportCount == 3)
            #expect(queue.items[1].reports.map(\.reason) == ["reason 0", "reason 1", "reason 2"])
            #expect(queue.items[1].reports.map(\.reporter.username) == ["reporter0", "reporter1", "reporter2"])
            let next = try await store.reportQueue(
                viewer: moderator, page: PageRequest(position: .after(try #require(queue.nextKey)), limit: 2))
            #expect(next.items.map(\.post.id) == [other] && next.nextKey == nil)

            try await store.dismissReports(postID: quiet, moderator: moderator, reason: "fine")
            await #expect(throws: StoreError.notFound("report"), "nothing waits any more") {
                try await store.dismissReports(postID: quiet, moderator: moderator, reason: "")
            }
            #expect(try await store.post(id: quiet, viewer: moderator) != nil, "a dismissed post stays")
            let files = try await store.removePost(postID: loud, moderator: moderator, reason: "abuse")
            #expect(files.count == 2)
            #expect(try await store.post(id: loud, viewer: moderator) == nil)
            #expect(
                try await store.reportQueue(viewer: moderator, page: PageRequest(limit: 10)).items.map(\.post.id)
                    == [other])
            // A new report brings a dismissed post back.
            try await store.report(postID: quiet, reporter: reporters[2], reason: "really")
            // Suspending the author handles their posts' reports.
            try await store.setSuspended(username: "troll", suspended: true, moderator: moderator, reason: "")
            let left = try await store.reportQueue(viewer: moderator, page: PageRequest(limit: 10)).items
            #expect(left.map(\.post.id) == [quiet] && left[0].reportCount == 1)

            let log = try await store.moderationLog(page: PageRequest(limit: 10)).items
            #expect(log.map(\.kind) == [.suspend, .removePost, .dismissReports])
            #expect(log[1].postId == loud && log[1].username == "troll" && log[1].reason == "abuse")
            #expect(log[2].postId == quiet && log[2].username == "author")
        }
    }
}

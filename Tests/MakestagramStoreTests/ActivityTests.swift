import Foundation
import MakestagramAPI
import MakestagramCore
import MakestagramStore
import Testing

/// The activity contract: what others did to a user, grouped, withdrawn with its cause, with exact unread counts
/// published on every change.
@Suite struct ActivityTests {
    func withStore(_ factory: StoreFactory, _ body: (any Store, SettledSink) async throws -> Void) async throws {
        let sink = RecordingSink()
        try await factory.with(sink) { made in try await body(made.store, SettledSink(sink: sink, settle: made.settle))
        }
    }

    /// The last unread count published for each user.
    func publishedCounts(_ events: [StoreEvent]) -> [Int64: Int] {
        var counts: [Int64: Int] = [:]
        for case .activityChanged(let user, let count) in events { counts[user] = count }
        return counts
    }

    func allGroups(_ store: any Store, _ user: Int64) async throws -> [ActivityGroup] {
        var groups: [ActivityGroup] = []
        var position = PageRequest.Position.start
        while true {
            let page = try await store.activity(userID: user, page: PageRequest(position: position, limit: 2))
            groups += page.items
            guard let next = page.nextKey else { return groups }
            position = .after(next)
        }
    }

    /// Someone of another server hears of what people here do through federation, from their own server: nothing is
    /// kept or counted for them here. What they do is heard here as anyone's is.
    @Test(arguments: StoreFactory.all)
    func peopleOfOtherServersGetNoActivityHere(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            let bob = try await store.saveRemoteActor(FederationRecordsTests.document("bob")).userID
            let theirs = try await store.photoPost(by: bob)
            let hers = try await store.photoPost(by: alice)
            _ = try await store.setLike(postID: theirs, viewer: alice, liked: true)
            _ = try await store.addComment(postID: theirs, author: alice, text: "Lovely, @bob@peer.test")
            _ = try await store.setFollow(viewer: alice, username: "bob@peer.test", following: true)
            _ = try await store.setLike(postID: hers, viewer: bob, liked: true)
            try await sink.settle()
            #expect(try await allGroups(store, bob).isEmpty)
            #expect(try await store.unreadActivityCount(userID: bob) == 0)
            #expect(publishedCounts(try await sink.take())[bob] == nil, "no count published for them")
            #expect(try await allGroups(store, alice).map(\.kind) == [.like])
            #expect(try await store.unreadActivityCount(userID: alice) == 1)
        }
    }

    @Test(arguments: StoreFactory.all)
    func likesCommentsAndFollowsAreGroupedNewestFirstAndOwnActionsNeverCount(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let carol = try await store.user("carol")
            let dave = try await store.user("dave")
            let post = try await store.photoPost(by: alice)
            _ = try await store.setLike(postID: post, viewer: alice, liked: true)
            _ = try await store.addComment(postID: post, author: alice, text: "my own")
            try await sink.settle()
            #expect(try await store.unreadActivityCount(userID: alice) == 0, "your own actions never notify you")
            _ = try await store.setLike(postID: post, viewer: bob, liked: true)
            _ = try await store.setLike(postID: post, viewer: carol, liked: true)
            _ = try await store.setLike(postID: post, viewer: dave, liked: true)
            let comment = try await store.addComment(postID: post, author: carol, text: "Lovely light")
            _ = try await store.setFollow(viewer: bob, username: "alice", following: true)
            _ = try await store.setFollow(viewer: dave, username: "alice", following: true)
            try await sink.settle()

            let groups = try await allGroups(store, alice)
            #expect(groups.map(\.kind) == [.follow, .comment, .like])
            #expect(groups[0].actors.map(\.username) == ["dave", "bob"] && groups[0].actorCount == 2)
            #expect(groups[1].comment == ActivityComment(id: comment.id, text: "Lovely light"))
            #expect(groups[1].actors.map(\.username) == ["carol"] && groups[1].post?.id == post)
            #expect(groups[2].actors.map(\.username) == ["dave", "carol", "bob"] && groups[2].actorCount == 3)
            #expect(groups[2].post?.thumbnailURL.hasPrefix("/media/") == true)
            #expect(groups.allSatisfy { $0.unread })
            #expect(try await store.unreadActivityCount(userID: alice) == 6)
            #expect(publishedCounts(try await sink.take())[alice] == 6)
            #expect(try await store.activity(userID: bob, page: PageRequest(limit: 20)).items.isEmpty)
        }
    }

    @Test(arguments: StoreFactory.all)
    func undoingAnActionWithdrawsItsActivity(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let carol = try await store.user("carol")
            let post = try await store.photoPost(by: alice)
            _ = try await store.setLike(postID: post, viewer: bob, liked: true)
            _ = try await store.setLike(postID: post, viewer: carol, liked: true)
            let comment = try await store.addComment(postID: post, author: bob, text: "hi")
            _ = try await store.setFollow(viewer: carol, username: "alice", following: true)
            try await sink.settle()
            #expect(try await store.unreadActivityCount(userID: alice) == 4)

            _ = try await store.setLike(postID: post, viewer: bob, liked: false)
            try await store.deleteComment(id: comment.id, viewer: bob)
            _ = try await store.setFollow(viewer: carol, username: "alice", following: false)
            try await sink.settle()
            let groups = try await allGroups(store, alice)
            #expect(groups.count == 1 && groups[0].actors.map(\.username) == ["carol"] && groups[0].actorCount == 1)
            #expect(try await store.unreadActivityCount(userID: alice) == 1)
            #expect(publishedCounts(try await sink.take())[alice] == 1)

            _ = try await store.deletePost(id: post, viewer: alice)
            try await sink.settle()
            #expect(try await allGroups(store, alice).isEmpty)
            #expect(try await store.unreadActivityCount(userID: alice) == 0)
            #expect(publishedCounts(try await sink.take())[alice] == 0)
        }
    }

    @Test(arguments: StoreFactory.all)
    func markingAsReadStopsAtWhatWasShown(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let carol = try await store.user("carol")
            let first = try await store.photoPost(by: alice)
            let second = try await store.photoPost(by: alice)
            _ = try await store.setLike(postID: first, viewer: bob, liked: true)
            _ = try await store.setLike(postID: second, viewer: bob, liked: true)
            try await sink.settle()
            let shown = try await store.activity(userID: alice, page: PageRequest(limit: 20))
            _ = try await store.setLike(postID: first, viewer: carol, liked: true)
            _ = try await sink.take()

            let unread = try await store.markActivityRead(userID: alice, through: shown.items[0].latestId)
            #expect(unread == 1, "the like that came after the page was shown stays unread")
            #expect(publishedCounts(try await sink.take()) == [alice: 1])
            let groups = try await allGroups(store, alice)
            #expect(
                groups.map(\.unread) == [true, false], "carol joined the first post's group, which moved to the top")
            #expect(try await store.markActivityRead(userID: alice, through: nil) == 0)
            #expect(try await allGroups(store, alice).allSatisfy { !$0.unread })
            #expect(try await store.markActivityRead(userID: alice, through: nil) == 0)
            #expect(publishedCounts(try await sink.take()) == [alice: 0], "once: the second read changed nothing")
        }
    }

    /// Random likes, unlikes, comments, deletions, follows and reads by four users: after each, every user's unread
    /// count equals their unread rows and the last published count, and their groups add up to their rows.
    @Test(arguments: StoreFactory.all)
    func unreadCountsStayExactThroughRandomWrites(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let names = ["alice", "bob", "carol", "dave"]
            var users: [Int64] = []
            for name in names { users.append(try await store.user(name)) }
            var posts: [Int64] = []
            for user in users { posts.append(try await store.photoPost(by: user)) }
            var comments: [MakestagramAPI.Comment] = []
            var published: [Int64: Int] = [:]
            var random = SystemRandomNumberGenerator()
            for _ in 0..<120 {
                let actor = users.randomElement(using: &random)!
                switch Int.random(in: 0..<6, using: &random) {
                case 0, 1:
                    _ = try await store.setLike(
                        postID: posts.randomElement(using: &random)!, viewer: actor, liked: Bool.random(using: &random))
                case 2:
                    comments.append(
                        try await store.addComment(
                            postID: posts.randomElement(using: &random)!, author: actor, text: "x"))
                case 3:
                    if let index = comments.indices.randomElement(using: &random) {
                        let comment = comments.remove(at: index)
                        try await store.deleteComment(id: comment.id, viewer: comment.author.id)
                    }
                case 4:
                    let other = Int.random(in: 0..<names.count, using: &random)
                    if users[other] != actor {
                        _ = try await store.setFollow(viewer: actor, username: names[other], following: Bool.random())
                    }
                default:
                    _ = try await store.markActivityRead(userID: actor, through: nil)
                }
                published.merge(publishedCounts(try await sink.take())) { _, new in new }
                for user in users {
                    let unread = try await store.unreadActivityCount(userID: user)
                    let groups = try await allGroups(store, user)
                    #expect(unread == (published[user] ?? 0))
                    #expect(groups.filter(\.unread).count <= unread)
                    #expect(groups.allSatisfy { $0.actors.count == min($0.actorCount, ActivityGroup.actorsShown) })
                    #expect(groups.allSatisfy { group in !group.actors.contains { $0.id == user } })
                }
            }
        }
    }

    /// A private account's post is news only to those who may open it: a mention of someone who does not follow it,
    /// in its caption or in a follower's comment, notifies nobody.
    @Test(arguments: StoreFactory.all)
    func mentionsInAPrivateAccountsPostNotifyOnlyWhoMaySeeIt(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let pia = try await store.user("pia")
            let fay = try await store.user("fay")
            let otto = try await store.user("otto")
            _ = try await store.setPrivate(userID: pia, isPrivate: true)
            _ = try await store.setFollow(viewer: fay, username: "pia", following: true)
            try await store.answerFollowRequest(viewer: pia, username: "fay", approve: true)
            let post = try await store.photoPost(by: pia, caption: "For @fay and @otto")
            _ = try await store.addComment(postID: post, author: fay, text: "@otto, you should see this")
            try await sink.settle()
            #expect(try await allGroups(store, fay).map(\.kind) == [.mention])
            #expect(try await allGroups(store, otto).isEmpty)
            #expect(try await store.unreadActivityCount(userID: otto) == 0)
        }
    }

    /// Mentions in captions and comments notify whom they name (never the writer, and not a post's author twice for a
    /// comment on their post), grouped one by one, and leave with what named them.
    @Test(arguments: StoreFactory.all)
    func mentionsNotifyWhomTheyNameAndLeaveWithTheirText(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let carol = try await store.user("carol")
            let post = try await store.photoPost(by: alice, caption: "With @bob, @carol, @alice and @nobody.")
            let comment = try await store.addComment(postID: post, author: bob, text: "@alice look, @carol is here")
            try await sink.settle()
            let bobs = try await allGroups(store, bob)
            #expect(bobs.map(\.kind) == [.mention] && bobs[0].post?.id == post && bobs[0].comment == nil)
            #expect(bobs[0].actors.map(\.username) == ["alice"])
            let carols = try await allGroups(store, carol)
            #expect(carols.map(\.kind) == [.mention, .mention], "one in the caption, one in the comment")
            #expect(carols[0].comment == ActivityComment(id: comment.id, text: "@alice look, @carol is here"))
            let alices = try await allGroups(store, alice)
            #expect(alices.map(\.kind) == [.comment], "the post's author hears of the comment once, not of herself")

            // An edited caption keeps the mentions it still has and withdraws the others; a deleted comment takes its
            // own.
            _ = try await store.editCaption(postID: post, viewer: alice, caption: "With @carol only")
            try await store.deleteComment(id: comment.id, viewer: bob)
            try await sink.settle()
            #expect(try await allGroups(store, bob).isEmpty)
            #expect(try await allGroups(store, carol).map(\.kind) == [.mention])
            #expect(try await store.unreadActivityCount(userID: carol) == 1)
            _ = try await store.editCaption(postID: post, viewer: alice, caption: "With @carol and @bob")
            try await sink.settle()
            #expect(try await allGroups(store, bob).map(\.kind) == [.mention])
            #expect(try await store.unreadActivityCount(userID: carol) == 1, "carol's mention stayed as it was")
            _ = try await store.deletePost(id: post, viewer: alice)
            try await sink.settle()
            #expect(try await store.unreadActivityCount(userID: bob) == 0)
            #expect(try await store.unreadActivityCount(userID: carol) == 0)
        }
    }

    /// A deleted post takes the activity its likes caused, and only its own: not that of a post whose ID begins with
    /// the same digits, whose likes' sources begin as its own do.
    @Test(arguments: StoreFactory.all)
    func aDeletedPostTakesItsLikesActivityAndNoOtherPosts(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let carol = try await store.user("carol")
            var posts: [Int64] = []
            for _ in 0..<12 { posts.append(try await store.photoPost(by: alice)) }
            let first = try #require(posts.first)
            let sharingDigits = posts.filter { $0 != first && String($0).hasPrefix(String(first)) }
            #expect(!sharingDigits.isEmpty, "a post whose ID begins with the first one's")
            for post in posts { _ = try await store.setLike(postID: post, viewer: bob, liked: true) }
            _ = try await store.setLike(postID: first, viewer: carol, liked: true)
            try await sink.settle()
            #expect(try await store.unreadActivityCount(userID: alice) == 13)

            _ = try await store.deletePost(id: first, viewer: alice)
            try await sink.settle()
            #expect(try await store.unreadActivityCount(userID: alice) == 11)
            let groups = try await allGroups(store, alice)
            #expect(Set(groups.compactMap(\.post?.id)) == Set(posts.dropFirst()))
            #expect(groups.allSatisfy { $0.kind == .like && $0.actorCount == 1 && $0.unread })
        }
    }

    /// A suspended user's activity leaves everyone's list at once; lifted, it comes back as read.
    @Test(arguments: StoreFactory.all)
    func aSuspensionWithdrawsActivityAndLiftingItBringsItBackAsRead(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            let troll = try await store.user("troll")
            let moderator = try await store.user("moderator")
            try await store.setModerator(username: "moderator", moderator: true, by: nil)
            let post = try await store.photoPost(by: alice)
            _ = try await store.setLike(postID: post, viewer: troll, liked: true)
            _ = try await store.addComment(postID: post, author: troll, text: "@alice hi")
            _ = try await store.setFollow(viewer: troll, username: "alice", following: true)
            _ = try await store.photoPost(by: troll, caption: "hey @alice")
            try await sink.settle()
            #expect(try await store.unreadActivityCount(userID: alice) == 4)

            try await store.setSuspended(username: "troll", suspended: true, moderator: moderator, reason: "")
            #expect(publishedCounts(try await sink.take())[alice] == 0)
            #expect(try await allGroups(store, alice).isEmpty)

            try await store.setSuspended(username: "troll", suspended: false, moderator: moderator, reason: "")
            try await sink.settle()
            let groups = try await allGroups(store, alice)
            #expect(Set(groups.map(\.kind)) == [.like, .comment, .follow, .mention])
            #expect(groups.allSatisfy { !$0.unread })
            #expect(try await store.unreadActivityCount(userID: alice) == 0)
        }
    }

    /// A batch is applied once: a second consumer that read the same batch finds the position moved and writes
    /// nothing.
    @Test(arguments: StoreFactory.all)
    func aBatchIsAppliedOnceWhoeverReadsIt(factory: StoreFactory) async throws {
        try await withStore(factory) { store, sink in
            let alice = try await store.user("alice")
            let bob = try await store.user("bob")
            let post = try await store.photoPost(by: alice)
            try await sink.settle()
            _ = try await store.setLike(postID: post, viewer: bob, liked: true)
            let batch = try await store.changes(for: "activity", limit: 100)
            #expect(batch.changes.contains { if case .likeChanged = $0.event { true } else { false } })
            func writes<S: Store>(_ store: S) async throws -> [ActivityWrite] {
                try await ActivityRules(store: store).writes(for: batch.changes)
            }
            let writes = try await writes(store)
            #expect(try await store.applyActivity(writes, consumer: "activity", batch: batch))
            #expect(try await !store.applyActivity(writes, consumer: "activity", batch: batch))
            #expect(try await store.unreadActivityCount(userID: alice) == 1)
            // What is left to read is the unread count the batch published, which causes nothing: on PostgreSQL it
            // is logged for the other instances' sockets; SQLite has no other instance and does not log it.
            let rest = try await store.changes(for: "activity", limit: 100).changes
            #expect(rest.allSatisfy { if case .activityChanged = $0.event { true } else { false } })
            #expect(rest.count == (factory.description == StoreFactory.sqlite.description ? 0 : 1))
            #expect(publishedCounts(try await sink.take())[alice] == 1, "published all the same")
        }
    }
}

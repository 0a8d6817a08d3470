import Foundation
import Logging
import MakestagramAPI
import MakestagramCore
import MakestagramStore
import PostgresTestSupport
import Testing

@testable import MakestagramStorePostgres

/// Two instances over one PostgreSQL database, as two server processes run: writes go through either, and the
/// timelines each serves through its caches must match the database — the instance that wrote at once (it applies
/// its own changes when they commit), the other once the change stream brought them.
@Suite(.enabled(if: TestPostgres.isAvailable, "needs MAKESTAGRAM_TEST_POSTGRES"))
struct SharedCachesTests {
    func withInstances(_ body: (PostgresStore, PostgresStore) async throws -> Void) async throws {
        let (url, drop) = try await TestPostgres.makeDatabase()
        let options = try PostgresOptions(url: url)
        let first = try await PostgresStore.open(options, events: nil, logger: Logger(label: "a"))
        let second = try await PostgresStore.open(options, events: nil, logger: Logger(label: "b"))
        let running = [Task { try await first.run() }, Task { try await second.run() }]
        func stop() async {
            first.close()
            second.close()
            for task in running { _ = await task.result }
            await drop()
        }
        do {
            try await body(first, second)
        } catch {
            await stop()
            throw error
        }
        await stop()
    }

    @Test func cachedTimelinesOfTwoInstancesMatchTheDatabaseThroughRandomWrites() async throws {
        try await withInstances { a, b in
            let names = ["ana", "ben", "cyd", "dee", "eve"]
            var users: [Int64] = []
            for name in names { users.append(try await a.user(name)) }
            try await b.caughtUp()
            var posts: [Int64] = []
            var generator = SeededGenerator(seed: 11)
            var hits = 0
            for step in 0..<250 {
                let writer = Bool.random(using: &generator) ? a : b
                let other = writer === a ? b : a
                let actor = users.randomElement(using: &generator)!
                switch Int.random(in: 0..<10, using: &generator) {
                case 0..<4:
                    posts.append(try await writer.photoPost(by: actor))
                case 4:
                    for (index, post) in posts.enumerated().shuffled(using: &generator) {
                        guard (try? await writer.deletePost(id: post, viewer: actor)) != nil else { continue }
                        posts.remove(at: index)
                        break
                    }
                case 5..<8:
                    if let post = posts.randomElement(using: &generator) {
                        _ = try await writer.setLike(
                            postID: post, viewer: actor, liked: Bool.random(using: &generator))
                    }
                case 8:
                    let followee = users.filter { $0 != actor }.randomElement(using: &generator)!
                    _ = try await writer.setFollow(
                        viewer: actor, username: names[users.firstIndex(of: followee)!],
                        following: Int.random(in: 0..<3, using: &generator) > 0)
                default:
                    if let post = posts.randomElement(using: &generator) {
                        _ = try await writer.addComment(postID: post, author: actor, text: "step \(step)")
                    }
                }
                // The writer without waiting; the other once the stream brought the change.
                hits += try await compare(writer, users: users, step: step)
                try await other.caughtUp()
                hits += try await compare(other, users: users, step: step)
            }
            #expect(hits > 2_000)
        }
    }

    /// Compares every user's timeline pages served by `store` with the database; answers how many came from memory.
    func compare(_ store: PostgresStore, users: [Int64], step: Int) async throws -> Int {
        var hits = 0
        for viewer in users {
            let first = PageRequest(limit: 3)
            let expected = try await store.read { connection in
                try await PostgresStore.timelineList(connection, viewer: viewer, page: first, logger: store.logger)
            }
            var requests = [first, PageRequest(limit: 100)]
            if let next = expected.nextKey { requests.append(PageRequest(position: .after(next), limit: 3)) }
            if let newest = expected.newestKey {
                requests.append(PageRequest(position: .newerThan(newest - 5), limit: 2))
            }
            for request in requests {
                let fromDatabase = try await store.read { connection in
                    try await PostgresStore.timelineList(
                        connection, viewer: viewer, page: request, logger: store.logger)
                }
                if let window = store.caches.timelines.windows.lookup(viewer).value,
                    let cached = store.caches.timelines.page(request, in: window)
                {
                    hits += 1
                    #expect(same(cached, fromDatabase), "step \(step), viewer \(viewer), \(request)")
                }
                let served = try await store.timeline(viewer: viewer, page: request, known: { _, _ in true })
                #expect(same(served, fromDatabase), "step \(step), viewer \(viewer), \(request)")
            }
        }
        return hits
    }

    func same(_ lhs: PageResult<ListedPost>, _ rhs: PageResult<ListedPost>) -> Bool {
        lhs.items == rhs.items && lhs.nextKey == rhs.nextKey && lhs.newestKey == rhs.newestKey
    }

    @Test func aJobOfAnInstanceWhoseConnectionEndsIsTakenUpByAnother() async throws {
        try await withInstances { a, b in
            let (holder, release) = await a.holding("variant backfill")
            let both = try await b.runAlone("variant backfill") { Issue.record("ran on both instances") }
            #expect(!both)
            // The connection that holds the claim ends, as when its instance is killed. (Only in this test's
            // database: the tests running beside it hold advisory locks of their own.)
            let ended = try await b.read { connection in
                try await connection.query(
                    """
                    SELECT count(pg_terminate_backend(pid)) FROM pg_locks
                    WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()
                      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    """, logger: Logger(label: "test")
                ).collect().first?.decode(Int.self)
            }
            #expect(ended == 1)
            var ran = false
            let deadline = ContinuousClock.now + .seconds(10)
            while !ran && ContinuousClock.now < deadline {
                ran = try await b.runAlone("variant backfill") {}
                if !ran { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(ran)
            release()
            _ = await holder.result
        }
    }

    @Test func aLogOutThroughOneInstanceEndsTheSessionOnTheOther() async throws {
        try await withInstances { a, b in
            let alice = try await a.user("alice")
            let token = [UInt8](repeating: 9, count: 32)
            try await a.createSession(userID: alice, tokenHash: token)
            // Both instances now hold the session in memory.
            #expect(try await a.sessionUser(tokenHash: token)?.username == "alice")
            #expect(try await b.sessionUser(tokenHash: token)?.username == "alice")
            try await a.deleteSession(tokenHash: token)
            #expect(try await a.sessionUser(tokenHash: token) == nil)
            try await b.caughtUp()
            #expect(try await b.sessionUser(tokenHash: token) == nil)
        }
    }

    @Test func aCaptionEditedThroughOneInstanceReachesTheOthersTimelinesAndSubscribers() async throws {
        let sink = RecordingSink()
        let (url, drop) = try await TestPostgres.makeDatabase()
        let options = try PostgresOptions(url: url)
        let a = try await PostgresStore.open(options, events: nil, logger: Logger(label: "a"))
        let b = try await PostgresStore.open(options, events: sink, logger: Logger(label: "b"))
        let running = [Task { try await a.run() }, Task { try await b.run() }]
        let alice = try await a.user("alice")
        let post = try await a.photoPost(by: alice, caption: "before")
        try await b.caughtUp()
        // b keeps alice's timeline with the post at its first version.
        #expect(try await b.timeline(viewer: alice, page: PageRequest(limit: 5)).items.first?.caption == "before")
        let edited = try await a.editCaption(postID: post, viewer: alice, caption: "after")
        try await b.caughtUp()
        #expect(try await b.timeline(viewer: alice, page: PageRequest(limit: 5)).items.first?.caption == "after")
        let edits = sink.take().compactMap { event -> (String, Int64)? in
            if case .captionEdited(post, let caption, _, let version) = event { (caption, version) } else { nil }
        }
        #expect(edits.count == 1 && edits.first?.0 == "after" && edits.first?.1 == edited.version)
        a.close()
        b.close()
        for task in running { _ = await task.result }
        await drop()
    }

    /// An instance that cannot read the change stream must not answer from memory: a session ended elsewhere (here,
    /// deleted behind the store's back, as a change it never heard of) stops working as soon as the caches are
    /// distrusted.
    @Test func distrustedCachesAreNotUsed() async throws {
        let (url, drop) = try await TestPostgres.makeDatabase()
        var options = try PostgresOptions(url: url)
        options.pollInterval = .seconds(600)
        options.staleness = .seconds(600)
        let store = try await PostgresStore.open(options, events: nil, logger: Logger(label: "a"))
        let running = Task { try await store.run() }
        let alice = try await store.user("alice")
        let token = [UInt8](repeating: 4, count: 32)
        try await store.createSession(userID: alice, tokenHash: token)
        #expect(try await store.sessionUser(tokenHash: token) != nil)
        try await TestPostgres.run("DELETE FROM sessions", on: url)
        // Trusted, the kept session still answers (which is why the stream must be current)...
        #expect(try await store.sessionUser(tokenHash: token) != nil)
        // ...and once the stream is out of reach, the database does.
        store.caches.distrust()
        #expect(try await store.sessionUser(tokenHash: token) == nil)
        store.close()
        _ = await running.result
        await drop()
    }

    /// An instance that could not read the change stream for longer than the table keeps changes cannot know what
    /// it missed: it says so (``StoreEvent/changesMissed``, which empties the caches and closes live clients with the
    /// resync code), forgets what it kept, and follows the stream again from then on.
    @Test func anInstanceCutOffLongerThanChangesAreKeptResyncsAndFollowsAgain() async throws {
        let sink = RecordingSink()
        let (url, drop) = try await TestPostgres.makeDatabase()
        var options = try PostgresOptions(url: url)
        // Kept 10 s: an instance that has not read for 5 s (the margin) may have missed some.
        options.changeRetention = .seconds(10)
        let a = try await PostgresStore.open(options, events: nil, logger: Logger(label: "a"))
        let b = try await PostgresStore.open(options, events: sink, logger: Logger(label: "b"))
        let running = [Task { try await a.run() }, Task { try await b.run() }]
        let alice = try await a.user("alice")
        let token = [UInt8](repeating: 6, count: 32)
        try await a.createSession(userID: alice, tokenHash: token)
        try await b.caughtUp()
        #expect(try await b.sessionUser(tokenHash: token)?.username == "alice")
        _ = sink.take()

        // The change table out of reach of every reader for longer than the margin (as a lost connection would be).
        try await TestPostgres.run("ALTER TABLE changes RENAME TO changes_away", on: url)
        try await Task.sleep(for: .seconds(6))
        // Meanwhile the session ended where no change row records it: only a resync can learn it.
        try await TestPostgres.run("DELETE FROM sessions", on: url)
        try await TestPostgres.run("ALTER TABLE changes_away RENAME TO changes", on: url)
        try await b.caughtUp()
        #expect(sink.take().contains(.changesMissed))
        #expect(try await b.sessionUser(tokenHash: token) == nil, "nothing kept from before the gap is used")

        // Following again: a change through the other instance arrives as usual.
        let post = try await a.photoPost(by: alice, caption: "after the gap")
        try await b.caughtUp()
        #expect(
            sink.take().contains { if case .postCreated(let created, _) = $0 { created.id == post } else { false } })
        a.close()
        b.close()
        for task in running { _ = await task.result }
        await drop()
    }

    /// Many batches at once through both instances, on posts of a few authors: the posts and then their authors are
    /// locked in ID order, so no batch waits for ever, and every count the triggers keep matches the rows.
    /// Changes older than the table keeps go, but never one the activity consumer has not read: a consumer that
    /// was stopped for longer still derives every notification.
    @Test func changesTheActivityConsumerHasNotReadOutliveTheirRetention() async throws {
        try await withInstances { a, b in
            let author = try await a.user("author")
            let liker = try await a.user("liker")
            let post = try await a.photoPost(by: author)
            let consumer = ActivityConsumer(
                store: b, bell: ChangeBell(), logger: Logger(label: "test"), idleAdvance: .zero)
            try await consumer.catchUp()
            _ = try await a.setLike(postID: post, viewer: liker, liked: true)
            let logger = Logger(label: "test")
            func pruneEverythingAllowed() async throws -> Int {
                try await a.read { connection in
                    _ = try await connection.query(ChangeStream.prune(olderThan: .zero), logger: logger).collect()
                    return try await connection.query("SELECT count(*) FROM changes", logger: logger).collect()[0]
                        .decode(Int.self)
                }
            }
            #expect(try await pruneEverythingAllowed() > 0, "the like's change waits for the consumer")
            try await consumer.catchUp()
            #expect(try await a.unreadActivityCount(userID: author) == 1)
            // Its position moves past the like once no older transaction is running (anywhere on the server: other
            // databases' transactions hold the snapshot back too); then the change may go.
            var left = try await pruneEverythingAllowed()
            let deadline = ContinuousClock.now + .seconds(30)
            while left > 0 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                try await consumer.catchUp()
                left = try await pruneEverythingAllowed()
            }
            #expect(left == 0)
        }
    }

    /// A durable consumer reads the log a few changes at a time from its position (the snapshot of its last complete
    /// read): a change whose transaction ran on while later changes were read and applied is still read once it
    /// commits, exactly once, and the position never holds more than that snapshot however long it stays open.
    @Test func aChangeCommittedLateIsReadOnceByADurableConsumer() async throws {
        try await withInstances { a, _ in
            let logger = Logger(label: "test")
            let author = try await a.user("author")
            let post = try await a.photoPost(by: author)
            var people: [Int64] = []
            for index in 0..<12 { people.append(try await a.user("liker\(index)")) }
            let likers = people
            /// Reads and moves the consumer on until nothing is left; answers the likes read, by whom.
            @Sendable func drain() async throws -> [Int64] {
                var likes: [Int64] = []
                while true {
                    let batch = try await a.changes(for: "activity", limit: 3)
                    #expect(try await a.applyActivity([], consumer: "activity", batch: batch))
                    if batch.read == 0 { return likes }
                    for change in batch.changes {
                        if case .likeChanged(let like) = change.event { likes.append(like.actor.id) }
                    }
                }
            }
            @Sendable func position() async throws -> String {
                try await a.read { connection in
                    try await connection.query(
                        "SELECT position FROM change_consumers WHERE name = 'activity'", logger: logger
                    ).collect()[0].decode(String.self)
                }
            }
            // A position of the earlier form (`xid|applied|floor`) is read the old way until a read takes everything,
            // then becomes a snapshot.
            try await a.read { connection in
                try await connection.query(
                    """
                    UPDATE change_consumers SET position = pg_snapshot_xmin(pg_current_snapshot())::text || '|'
                    WHERE name = 'activity'
                    """, logger: logger)
            }
            _ = try await a.setLike(postID: post, viewer: likers[0], liked: true)
            #expect(try await drain() == [likers[0]])
            #expect(LogPosition(try await position()) != nil)

            // A transaction logs a copy of that like and stays open while eleven more likes are read.
            let late = try await a.read { connection in
                try await connection.query("BEGIN", logger: logger)
                try await connection.query(
                    """
                    INSERT INTO changes (payload) SELECT payload FROM changes
                    WHERE seq = (SELECT max(seq) FROM changes WHERE payload LIKE '%"like"%')
                    """, logger: logger)
                let xid = try await connection.query("SELECT pg_current_xact_id()::text", logger: logger)
                    .collect()[0].decode(String.self)
                for liker in likers.dropFirst() { _ = try await a.setLike(postID: post, viewer: liker, liked: true) }
                #expect(try await drain() == Array(likers.dropFirst()))
                let held = try #require(LogPosition(try await position()))
                #expect(held.cut == nil)
                #expect(held.base.running.contains(try #require(UInt64(xid))), "the open transaction is watched")
                try await connection.query("COMMIT", logger: logger)
                return try #require(UInt64(xid))
            }
            #expect(try await drain() == [likers[0]], "the late change is read once it commits")
            #expect(try await drain().isEmpty)
            #expect(try #require(LogPosition(try await position())).base.sees(late))
        }
    }

    /// The caches' stream reads the log the way a durable consumer does, a batch at a time from its floor: while a
    /// transaction that logged a change stays open, the changes committed after it still reach the other instance
    /// (batch after batch), and the late change arrives once, when it commits.
    @Test func theCachesStreamReadsPastAnOpenTransactionInBatchesAndALateChangeOnce() async throws {
        let (url, drop) = try await TestPostgres.makeDatabase()
        var options = try PostgresOptions(url: url)
        options.changeReadBatch = 3
        let logger = Logger(label: "test")
        let sink = RecordingSink()
        let a = try await PostgresStore.open(options, events: nil, logger: Logger(label: "a"))
        let b = try await PostgresStore.open(options, events: sink, logger: Logger(label: "b"))
        let running = [Task { try await a.run() }, Task { try await b.run() }]
        /// The likes the second instance publishes next, by whom, once it has `count` of them (or after 30 s).
        @Sendable func likes(_ count: Int) async throws -> [Int64] {
            let deadline = ContinuousClock.now + .seconds(30)
            var more: [Int64] = []
            while true {
                for event in sink.take() {
                    if case .likeChanged(let like) = event { more.append(like.actor.id) }
                }
                if more.count >= count || ContinuousClock.now > deadline { return more }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        do {
            let author = try await a.user("author")
            let post = try await a.photoPost(by: author)
            var people: [Int64] = []
            for index in 0..<12 { people.append(try await a.user("liker\(index)")) }
            let likers = people
            _ = try await a.setLike(postID: post, viewer: likers[0], liked: true)
            #expect(try await likes(1) == [likers[0]])

            // A transaction logs a copy of that like and stays open while eleven more likes commit and are read.
            try await a.read { connection in
                try await connection.query("BEGIN", logger: logger)
                try await connection.query(
                    """
                    INSERT INTO changes (payload) SELECT payload FROM changes
                    WHERE seq = (SELECT max(seq) FROM changes WHERE payload LIKE '%"like"%')
                    """, logger: logger)
                for liker in likers.dropFirst() { _ = try await a.setLike(postID: post, viewer: liker, liked: true) }
                #expect(try await likes(11) == Array(likers.dropFirst()))
                try await connection.query("COMMIT", logger: logger)
            }
            #expect(try await likes(1) == [likers[0]], "the late change arrives once it commits")
            try await b.caughtUp()
            #expect(try await likes(0).isEmpty)
        } catch {
            a.close()
            b.close()
            for task in running { _ = await task.result }
            await drop()
            throw error
        }
        a.close()
        b.close()
        for task in running { _ = await task.result }
        await drop()
    }

    @Test func likeStormsThroughTwoInstancesLeaveEveryCountExact() async throws {
        try await withInstances { a, b in
            var authors: [Int64] = []
            for index in 0..<4 { authors.append(try await a.user("author\(index)")) }
            var posts: [Int64] = []
            for index in 0..<12 { posts.append(try await b.photoPost(by: authors[index % authors.count])) }
            var likers = authors
            for index in 0..<12 { likers.append(try await a.user("liker\(index)")) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<32 {
                    group.addTask { [likers, posts] in
                        var random = SeededGenerator(seed: UInt64(task + 1))
                        for _ in 0..<40 {
                            _ = try await (Bool.random(using: &random) ? a : b).setLike(
                                postID: posts.randomElement(using: &random)!,
                                viewer: likers.randomElement(using: &random)!, liked: Bool.random(using: &random))
                        }
                    }
                }
                try await group.waitForAll()
            }
            // The activity the likes cause is derived from the change log, as a server does it.
            try await ActivityConsumer(store: b, bell: ChangeBell(), logger: Logger(label: "test")).catchUp()
            let mismatches = try await a.read { connection in
                try await connection.query(
                    """
                    SELECT
                      (SELECT count(*) FROM posts p
                        WHERE like_count <> (SELECT count(*) FROM likes l WHERE l.post_id = p.id)),
                      (SELECT count(*) FROM likes l JOIN posts p ON p.id = l.post_id
                        WHERE p.author_id <> l.user_id
                          AND NOT EXISTS (SELECT 1 FROM activity a
                            WHERE a.source = 'like:' || l.post_id || ':' || l.user_id)),
                      (SELECT count(*) FROM activity a WHERE kind = 'like' AND NOT EXISTS (SELECT 1 FROM likes l
                        WHERE a.source = 'like:' || l.post_id || ':' || l.user_id)),
                      (SELECT count(*) FROM users u
                        WHERE coalesce((SELECT count FROM unread_activity r WHERE r.user_id = u.id), 0)
                          <> (SELECT count(*) FROM activity a WHERE a.recipient_id = u.id AND a.unread = 1)),
                      (SELECT count(*) FROM activity_groups g WHERE size <> (SELECT count(*) FROM activity a
                        WHERE a.recipient_id = g.recipient_id AND a.group_key = g.group_key)),
                      (SELECT count(*) FROM activity_groups g WHERE newest_id <> (SELECT max(id) FROM activity a
                        WHERE a.recipient_id = g.recipient_id AND a.group_key = g.group_key)),
                      (SELECT count(*) FROM likes)
                    """, logger: Logger(label: "test")
                ).collect()[0].decode((Int, Int, Int, Int, Int, Int, Int).self)
            }
            #expect(mismatches.0 == 0, "posts whose like count is off")
            #expect(mismatches.1 == 0 && mismatches.2 == 0, "likes without activity, or activity without a like")
            #expect(mismatches.3 == 0, "users whose unread count is off")
            #expect(mismatches.4 == 0 && mismatches.5 == 0, "activity groups that do not match their rows")
            #expect(mismatches.6 > 0)
            // Both instances serve the counts the database holds.
            try await a.caughtUp()
            try await b.caughtUp()
            for post in posts {
                let stored = try await a.read { connection in
                    try await connection.query(
                        "SELECT like_count FROM posts WHERE id = \(post)", logger: Logger(label: "test")
                    )
                    .collect()[0].decode(Int.self)
                }
                #expect(try await a.post(id: post, viewer: authors[0])?.likeCount == stored)
                #expect(try await b.post(id: post, viewer: authors[0])?.likeCount == stored)
            }
        }
    }

    @Test func caughtUpInstancesPublishEveryChangeOnceInCommitOrder() async throws {
        let sinks = (RecordingSink(), RecordingSink())
        let (url, drop) = try await TestPostgres.makeDatabase()
        let options = try PostgresOptions(url: url)
        let a = try await PostgresStore.open(options, events: sinks.0, logger: Logger(label: "a"))
        let b = try await PostgresStore.open(options, events: sinks.1, logger: Logger(label: "b"))
        let running = [Task { try await a.run() }, Task { try await b.run() }]
        let author = try await a.user("author")
        let post = try await a.photoPost(by: author)
        var likers: [Int64] = []
        for index in 0..<20 { likers.append(try await b.user("liker\(index)")) }
        // Likes through both instances at once.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, liker) in likers.enumerated() {
                group.addTask {
                    _ = try await (index % 2 == 0 ? a : b).setLike(postID: post, viewer: liker, liked: true)
                }
            }
            try await group.waitForAll()
        }
        try await a.caughtUp()
        try await b.caughtUp()
        for events in [sinks.0.take(), sinks.1.take()] {
            let likes = events.compactMap { event -> LikeChange? in
                if case .likeChanged(let change) = event { change } else { nil }
            }
            #expect(likes.map(\.likeCount) == Array(1...20))
            #expect(likes.map(\.version) == likes.map(\.version).sorted())
            #expect(
                events.contains {
                    if case .postCreated(let created, [author]) = $0 { created.id == post } else { false }
                })
        }
        a.close()
        b.close()
        for task in running { _ = await task.result }
        await drop()
    }
}

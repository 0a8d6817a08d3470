import Foundation
import Testing

@testable import MakestagramStore
@testable import MakestagramStoreSQLite

struct CommittedCacheTests {
    @Test func aReadThatRacedAChangeKeepsOnlyTheKeysThatDidNotChange() {
        let cache = CommittedCache<Int, String>(capacity: 10)
        let generation = cache.generation
        // Between the read and its insertion, key 1 changes.
        cache.remove([1])
        cache.insert([(1, "old one"), (2, "two")], generation: generation)
        #expect(cache.lookup(1).value == nil)
        #expect(cache.lookup(2).value == "two")
        // A read that began after the change is kept.
        cache.insert("new one", for: 1, generation: cache.generation)
        #expect(cache.values([1, 2]) == ["new one", "two"])
        #expect(cache.values([1, 3]) == nil)
    }

    @Test func updatesChangeKeptValuesAndTurnAwayOlderReads() {
        let cache = CommittedCache<Int, Int>(capacity: 10)
        cache.insert(1, for: 1, generation: cache.generation)
        let generation = cache.generation
        cache.update([1, 2]) { $0 += 10 }
        #expect(cache.lookup(1).value == 11)
        #expect(cache.lookup(2).value == nil)  // not kept, so not made up
        cache.insert(2, for: 2, generation: generation)
        #expect(cache.lookup(2).value == nil)
    }

    @Test func forgottenChangesTurnAwayEveryOlderRead() {
        let cache = CommittedCache<Int, Int>(capacity: 100, changes: 3)
        let before = cache.generation
        for key in 10..<20 { cache.remove([key]) }
        // Key 1 never changed, but the read began before changes that are no longer remembered.
        cache.insert(1, for: 1, generation: before)
        #expect(cache.lookup(1).value == nil)
        cache.insert(1, for: 1, generation: cache.generation)
        #expect(cache.lookup(1).value == 1)
    }
}

struct TimelineWindowTests {
    func window(_ ids: ClosedRange<Int64>, complete: Bool) -> TimelineWindow {
        TimelineWindow(
            entries: ids.reversed().map { TimelineWindow.Entry(id: $0, viewerHasLiked: $0 % 2 == 0) },
            complete: complete)
    }

    func ids(_ page: (entries: ArraySlice<TimelineWindow.Entry>, nextKey: Int64?, newestKey: Int64?)?) -> [Int64]? {
        page?.entries.map(\.id)
    }

    @Test func pagesInsideTheWindowAreAnsweredAndOthersAreNot() {
        let top = window(11...20, complete: false)  // posts 1...10 exist but are not held
        #expect(ids(top.page(PageRequest(limit: 3))) == [20, 19, 18])
        #expect(top.page(PageRequest(limit: 3))?.nextKey == 18)
        #expect(ids(top.page(PageRequest(position: .after(18), limit: 3))) == [17, 16, 15])
        // Needs 12...10: the last is not held, and neither is whether more follow.
        #expect(top.page(PageRequest(position: .after(15), limit: 4)) == nil)
        #expect(top.page(PageRequest(limit: 10)) == nil)
        // Pull to refresh: the posts just above the key, newest first.
        #expect(ids(top.page(PageRequest(position: .newerThan(14), limit: 2))) == [16, 15])
        #expect(top.page(PageRequest(position: .newerThan(14), limit: 2))?.newestKey == 16)
        #expect(top.page(PageRequest(position: .newerThan(20), limit: 2))?.newestKey == 20)
        #expect(top.page(PageRequest(position: .newerThan(5), limit: 2)) == nil)

        let whole = window(1...5, complete: true)
        #expect(ids(whole.page(PageRequest(limit: 20))) == [5, 4, 3, 2, 1])
        #expect(whole.page(PageRequest(limit: 20))?.nextKey == nil)
        #expect(ids(whole.page(PageRequest(position: .after(1), limit: 20))) == [])
        #expect(ids(whole.page(PageRequest(position: .newerThan(0), limit: 2))) == [2, 1])
    }

    @Test func changesKeepTheWindowTrue() {
        var top = window(11...20, complete: false)
        top.insert(25)
        top.insert(5)  // older than the held part: its place is unknown, so it is not held
        top.insert(15)  // already there
        #expect(top.entries.map(\.id) == [25] + (11...20).reversed())
        top.remove(19)
        top.setLiked(25, true, at: 2)
        top.setLiked(25, false, at: 2)  // not newer than what the window knows: an echo, or older
        #expect(
            top.entries.prefix(2) == [
                .init(id: 25, viewerHasLiked: true, likeVersion: 2), .init(id: 20, viewerHasLiked: true),
            ])
        #expect(!top.entries.contains { $0.id == 19 })

        var whole = window(1...Int64(TimelineWindow.size), complete: true)
        whole.insert(0)
        #expect(whole.entries.last?.id == 1)  // full: the oldest falls off...
        #expect(whole.page(PageRequest(position: .after(2), limit: 5)) == nil)  // ...and the window is no longer whole
    }
}

/// The timeline read through the caches against the same list read from the database, after every kind of write.
struct TimelineCacheTests {
    let folder = FileManager.default.temporaryDirectory.appending(path: "timeline-\(UUID().uuidString)")
    let database: AppDatabase
    let store: SQLiteStore

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        database = try AppDatabase(path: folder.appending(path: "db.sqlite").path)
        store = SQLiteStore(database: database)
    }

    @Test func aPostDeletedAfterItWasListedFromMemoryLeavesThePage() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let ana = try await store.user("ana")
        var posts: [Int64] = []
        for _ in 0..<3 { posts.append(try await store.photoPost(by: ana)) }
        _ = try await store.timeline(viewer: ana, page: PageRequest(limit: 20))
        let window = try #require(database.caches.timelines.windows.lookup(ana).value)
        let listed = try #require(database.caches.timelines.page(PageRequest(limit: 20), in: window))
        _ = try await store.deletePost(id: posts[1], viewer: ana)
        let page = try await store.read { db in
            try PostQuery.complete(
                db, listed, viewer: ana, known: { _, _ in false }, hiding: [], signing: store.mediaSigning)
        }
        #expect(page.items.map(\.id) == [posts[2], posts[0]])
        #expect(page.items.allSatisfy { if case .post = $0 { true } else { false } })
    }

    @Test func cachedTimelinesMatchTheDatabaseThroughRandomWrites() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var users: [Int64] = []
        for name in ["ana", "ben", "cyd", "dee", "eve"] { users.append(try await store.user(name)) }
        var posts: [Int64] = []
        var generator = SeededGenerator(seed: 7)
        var hits = 0
        for step in 0..<400 {
            let actor = users.randomElement(using: &generator)!
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<4:
                posts.append(try await store.photoPost(by: actor))
            case 4:
                // Deletes a post of the actor's, if any.
                for (index, post) in posts.enumerated().shuffled(using: &generator) {
                    guard (try? await store.deletePost(id: post, viewer: actor)) != nil else { continue }
                    posts.remove(at: index)
                    break
                }
            case 5..<8:
                if let post = posts.randomElement(using: &generator) {
                    _ = try await store.setLike(postID: post, viewer: actor, liked: Bool.random(using: &generator))
                }
            case 8:
                let other = users.filter { $0 != actor }.randomElement(using: &generator)!
                _ = try await store.setFollow(
                    viewer: actor, username: ["ana", "ben", "cyd", "dee", "eve"][users.firstIndex(of: other)!],
                    following: Int.random(in: 0..<3, using: &generator) > 0)
            default:
                if let post = posts.randomElement(using: &generator) {
                    _ = try await store.addComment(postID: post, author: actor, text: "step \(step)")
                }
            }
            for viewer in users {
                let first = PageRequest(limit: 3)
                let expected = try await store.read { db in
                    try SQLiteStore.timelineList(db, viewer: viewer, page: first)
                }
                var requests = [first, PageRequest(limit: 100)]
                if let next = expected.nextKey { requests.append(PageRequest(position: .after(next), limit: 3)) }
                if let newest = expected.newestKey {
                    requests.append(PageRequest(position: .newerThan(newest - 5), limit: 2))
                }
                for request in requests {
                    let fromDatabase = try await store.read { db in
                        try SQLiteStore.timelineList(db, viewer: viewer, page: request)
                    }
                    if let window = database.caches.timelines.windows.lookup(viewer).value,
                        let cached = database.caches.timelines.page(request, in: window)
                    {
                        hits += 1
                        #expect(same(cached, fromDatabase), "step \(step), viewer \(viewer), \(request)")
                    }
                    let served = try await store.timeline(viewer: viewer, page: request, known: { _, _ in true })
                    #expect(same(served, fromDatabase), "step \(step), viewer \(viewer), \(request)")
                }
            }
        }
        // Most reads were answered from memory, so the comparison above checked the caches.
        #expect(hits > 4_000)
    }

    func same(_ lhs: PageResult<ListedPost>, _ rhs: PageResult<ListedPost>) -> Bool {
        lhs.items == rhs.items && lhs.nextKey == rhs.nextKey && lhs.newestKey == rhs.newestKey
    }
}

/// A linear congruential generator: weak, but deterministic, so that a failure repeats.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state ^ (state >> 29)
    }
}

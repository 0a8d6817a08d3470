import Foundation
import MakestagramAPI
import MakestagramStore
import PostgresTestSupport
import Testing

@testable import MakestagramStorePostgres

/// One call of `set_likes` carries the toggles that arrived together (``LikeBatches``) and writes them set by set.
/// Each toggle must still be answered as if the call's toggles had run one after another in the order given: whether
/// it changed something, the count and version right after it, and one change event per change, in version order.
@Suite(.enabled(if: TestPostgres.isAvailable, "needs MAKESTAGRAM_TEST_POSTGRES"))
struct LikeBatchTests {
    struct Pair: Hashable {
        let post: Int64
        let user: Int64
    }

    @Test func eachToggleOfABatchIsAnsweredAsIfTheyRanOneAfterAnother() async throws {
        let sink = RecordingSink()
        try await StoreFactory.postgres.with(sink) { made in
            let store = try #require(made.store as? PostgresStore)
            var users: [Int64] = []
            var names: [Int64: String] = [:]
            for name in ["author", "ann", "ben", "cat", "dan", "eve"] {
                let id = try await store.user(name)
                users.append(id)
                names[id] = name
            }
            let authors = [users[0], users[0], users[1]]
            var posts: [Int64] = []
            for author in authors { posts.append(try await store.photoPost(by: author)) }
            let missing = Int64(999_999)
            var count: [Int64: Int] = [:]
            var version: [Int64: Int64] = [:]
            for post in posts {
                version[post] = try #require(try await store.post(id: post, viewer: users[0])).version
            }
            // The likes stored, each with its place among its post's likes (higher: newer).
            var liked: [Pair: Int] = [:]
            var newest = 0
            var changes = 0
            _ = sink.take()

            var random = SeededGenerator(seed: 7)
            for _ in 0..<40 {
                let toggles = (0..<Int.random(in: 1...24, using: &random)).map { _ in
                    LikeBatches.Toggle(
                        postID: Int.random(in: 0..<10, using: &random) == 0
                            ? missing : posts.randomElement(using: &random)!,
                        viewer: users.randomElement(using: &random)!, liked: Bool.random(using: &random))
                }
                let results = await store.sendLikes(toggles)
                #expect(results.count == toggles.count)
                var state = liked.mapValues { _ in true }
                var last: [Pair: Int] = [:]
                for (index, (toggle, result)) in zip(toggles, results).enumerated() {
                    guard toggle.postID != missing else {
                        #expect(throws: StoreError.notFound("post")) { try result.get() }
                        continue
                    }
                    let pair = Pair(post: toggle.postID, user: toggle.viewer)
                    last[pair] = index
                    let changed = state[pair, default: false] != toggle.liked
                    state[pair] = toggle.liked
                    if changed {
                        count[toggle.postID, default: 0] += toggle.liked ? 1 : -1
                        version[toggle.postID]! += 1
                        changes += 1
                    }
                    let outcome = try result.get()
                    #expect(outcome.state.viewerHasLiked == toggle.liked)
                    #expect(outcome.state.likeCount == count[toggle.postID, default: 0])
                    #expect(outcome.state.version == version[toggle.postID])
                    #expect((outcome.change != nil) == changed)
                }
                // New likes are stored in the order of their last toggles; a pair that ends the call as it began
                // keeps its row, and so its place among the likers.
                for (pair, _) in last.sorted(by: { $0.value < $1.value }) {
                    let now = state[pair] == true
                    if now == (liked[pair] != nil) { continue }
                    newest += 1
                    liked[pair] = now ? newest : nil
                }
            }

            let published = try await SettledSink(sink: sink, settle: made.settle).take().compactMap {
                if case .likeChanged(let change) = $0 { change } else { nil }
            }
            #expect(published.count == changes)
            for post in posts {
                let stored = try #require(try await store.post(id: post, viewer: users[0]))
                #expect(stored.likeCount == count[post, default: 0])
                #expect(stored.version == version[post])
                let likers = liked.filter { $0.key.post == post }.sorted { $0.value > $1.value }.prefix(3)
                #expect(stored.likers == likers.map { names[$0.key.user]! })
                let events = published.filter { $0.postID == post }
                #expect(zip(events, events.dropFirst()).allSatisfy { $0.version < $1.version })
                if let final = events.last {
                    #expect(final.likeCount == stored.likeCount && final.version == stored.version)
                    #expect(final.likers == stored.likers)
                }
            }
            // Every like by someone other than the author is one unread activity for the author.
            for author in Set(authors) {
                let expected = liked.keys.filter { pair in
                    pair.user != author && authors[posts.firstIndex(of: pair.post)!] == author
                }.count
                #expect(try await store.unreadActivityCount(userID: author) == expected)
            }
        }
    }
}

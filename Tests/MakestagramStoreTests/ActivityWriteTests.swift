import Foundation
import MakestagramAPI
import MakestagramStore
import Testing

/// Coalescing the activity consumer's writes: fewer statements, the same rows as applying them one by one.
@Suite struct ActivityWriteTests {
    func like(_ post: Int64, by actor: Int64, at second: Double = 0) -> ActivityEntry {
        ActivityEntry(
            recipient: 1, actor: actor, kind: .like, post: post, source: "like:\(post):\(actor)",
            group: "like:\(post):0",
            createdAt: Date(timeIntervalSince1970: second))
    }

    /// Applies writes one by one to a table of entries by source, as both stores do.
    func applied(_ writes: [ActivityWrite], to start: [String: ActivityEntry]) -> [String: ActivityEntry] {
        var table = start
        for write in writes {
            switch write {
            case .add(let entry): if table[entry.source] == nil { table[entry.source] = entry }
            case .remove(let source): table[source] = nil
            case .removePost(let post): table = table.filter { $0.value.post != post }
            default: Issue.record("not used here")
            }
        }
        return table
    }

    func applied(_ steps: [CoalescedActivityWrite], to start: [String: ActivityEntry]) -> [String: ActivityEntry] {
        var table = start
        for step in steps {
            switch step {
            case .bySource(let remove, let add):
                for source in remove { table[source] = nil }
                #expect(Set(add.map(\.source)).count == add.count, "each source added once")
                for entry in add where table[entry.source] == nil { table[entry.source] = entry }
            case .other(let write): table = applied([write], to: table)
            }
        }
        return table
    }

    @Test func aRunOfLikesAndUnlikesIsTwoStatementsWithTheSameResult() {
        let before = ["like:1:2": like(1, by: 2), "like:9:9": like(9, by: 9)]
        let writes: [ActivityWrite] = [
            .add(like(1, by: 3, at: 1)), .remove(source: "like:1:2"), .add(like(1, by: 2, at: 2)),
            .remove(source: "like:1:3"), .add(like(1, by: 4, at: 3)), .add(like(1, by: 4, at: 4)),
            .add(like(9, by: 9, at: 5)), .remove(source: "like:1:5"),
        ]
        let steps = ActivityWrite.coalesced(writes)
        #expect(steps.count == 1)
        #expect(applied(steps, to: before) == applied(writes, to: before))
        #expect(applied(steps, to: before)["like:1:2"]?.createdAt == Date(timeIntervalSince1970: 2), "liked again")
        #expect(applied(steps, to: before)["like:9:9"]?.createdAt == Date(timeIntervalSince1970: 0), "kept as it was")
    }

    @Test func writesByPostStayBetweenRuns() {
        let writes: [ActivityWrite] = [
            .add(like(1, by: 3)), .removePost(1), .add(like(2, by: 3)), .remove(source: "like:2:3"),
            .add(like(2, by: 4)),
        ]
        let steps = ActivityWrite.coalesced(writes)
        #expect(steps.count == 3)
        #expect(steps[1] == .other(.removePost(1)))
        #expect(applied(steps, to: [:]) == applied(writes, to: [:]))
        #expect(Set(applied(steps, to: [:]).keys) == ["like:2:4"])
    }
}

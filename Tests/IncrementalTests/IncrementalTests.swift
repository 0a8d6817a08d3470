import Testing

@testable import Incremental

@MainActor @Suite struct IncrementalTests {
    @Test func diamondFiresOnceWithConsistentValues() {
        let a = Input(1)
        let b = a.i.map { $0 + 1 }
        let c = a.i.map { $0 * 10 }
        let d = b.zip(c) { "\($0)-\($1)" }
        var seen: [String] = []
        let observation = d.observe { seen.append($0) }
        a.write(2)
        a.write(3)
        #expect(seen == ["2-10", "3-20", "4-30"])
        _ = observation
    }

    @Test func equalWritesPropagateNothingUnlessAskedTo() {
        let count = Input(5)
        var fired = 0
        var inputFired = 0
        let observation = count.i.map { $0 * 2 }.observe { _ in fired += 1 }
        let direct = count.i.observe { _ in inputFired += 1 }
        count.write(5)
        #expect(fired == 1 && inputFired == 1)  // the initial calls only
        Graph.main.batch {
            count.write(7)
            count.write(5)
        }
        #expect(inputFired == 1)  // 5 → 7 → 5 in one batch is no change
        count.write(6)
        #expect(fired == 2)
        let always = Input(5, alwaysPropagate: true)
        var alwaysFired = 0
        let second = always.i.observe { _ in alwaysFired += 1 }
        always.write(5)
        #expect(alwaysFired == 2)
        // A derived Equatable value that does not change stops propagation too.
        let parity = count.i.map { $0 % 2 }
        var parityFired = 0
        let third = parity.observe { _ in parityFired += 1 }
        count.write(8)
        #expect(parityFired == 1)
        _ = (observation, second, third, direct)
    }

    struct Post: Equatable {
        var likeCount: Int
        var viewerHasLiked: Bool
    }

    @Test func keyPathsZipsConstantsAndFanIn() {
        let post = Input(Post(likeCount: 1, viewerHasLiked: false))
        let label = post.i.likeCount.zip(post.i.viewerHasLiked, I(constant: "♥")) { count, liked, heart in
            "\(liked ? heart : "♡") \(count)"
        }
        var text = ""
        let observation = label.observe { text = $0 }
        post.change {
            $0.likeCount += 1
            $0.viewerHasLiked = true
        }
        #expect(text == "♥ 2")
        let inputs = (0..<100).map { Input($0) }
        let sum = I<Int>.combine(inputs.map(\.i)) { $0.reduce(0, +) }
        #expect(sum.value == 4950)
        inputs[7].write(107)
        #expect(sum.value == 5050)
        _ = observation
    }

    @Test func flatMapFollowsTheChosenValueAndReleasesTheOldGraph() {
        let showLikes = Input(true)
        let likes = Input(3)
        let comments = Input(7)
        weak var firstInner: I<String>?
        let shown = showLikes.i.flatMap { show -> I<String> in
            let inner = show ? likes.i.map { "\($0) likes" } : comments.i.map { "\($0) comments" }
            if firstInner == nil { firstInner = inner }
            return inner
        }
        var values: [String] = []
        let observation = shown.observe { values.append($0) }
        likes.write(4)
        showLikes.write(false)
        likes.write(5)  // no longer followed
        comments.write(8)
        #expect(values == ["3 likes", "4 likes", "7 comments", "8 comments"])
        #expect(firstInner == nil)
        #expect(likes.i.dependentCount == 0)
        _ = observation
    }

    @Test func flatMapIntoATallerGraphStaysGlitchFree() {
        let base = Input(1)
        let tall = base.i.map { $0 + 1 }.map { $0 + 1 }.map { $0 + 1 }  // base + 3
        let pick = Input(false)
        let chosen = pick.i.flatMap { $0 ? tall : base.i }
        let both = chosen.zip(base.i) { $0 - $1 }  // 0 while following base, 3 while following tall
        var seen: [Int] = []
        let observation = both.observe { seen.append($0) }
        pick.write(true)
        base.write(10)
        Graph.main.batch {
            base.write(20)
            pick.write(false)
        }
        // 3 stays 3 when base changes (equal values stop); no inconsistent mix of old and new ever shows.
        #expect(seen == [0, 3, 0])
        _ = observation
    }

    @Test func batchedWritesPropagateOnce() {
        let first = Input("Ada")
        let last = Input("Lovelace")
        var names: [String] = []
        let observation = first.i.zip(last.i) { "\($0) \($1)" }.observe { names.append($0) }
        Graph.main.batch {
            first.write("Grace")
            last.write("Hopper")
        }
        #expect(names == ["Ada Lovelace", "Grace Hopper"])
        _ = observation
    }

    @Test func valuesNothingObservesAreReleased() {
        let input = Input(1)
        weak var derived: I<Int>?
        var observation: Disposable?
        do {
            let node = input.i.map { $0 + 1 }.map { $0 * 2 }
            derived = node
            observation = node.observe { _ in }
        }
        #expect(derived != nil)
        observation = nil
        #expect(derived == nil)
        input.write(2)  // a write after release touches nothing released
        #expect(input.i.dependentCount == 0)
        _ = observation
    }

    /// The tutorials' reused table cell: rebinding to another post drops the old bindings.
    final class PostCell {
        var label = ""
        var bag = DisposeBag()

        func bind(to likeCount: I<Int>) {
            bag = DisposeBag()
            likeCount.observe { [weak self] in self?.label = "\($0) likes" }.disposed(by: bag)
        }
    }

    @Test func aReusedCellNeverShowsTheOldPostsUpdates() {
        let first = Input(1)
        let second = Input(10)
        let cell = PostCell()
        cell.bind(to: first.i)
        #expect(cell.label == "1 likes")
        cell.bind(to: second.i)
        first.write(2)
        #expect(cell.label == "10 likes")
        second.write(11)
        #expect(cell.label == "11 likes")
        #expect(first.i.observerCount == 0)
    }

    @Test func disposingInsideAPropagationTakesEffectAtOnce() {
        let value = Input(0)
        var late = 0
        var observations: [Disposable] = []
        observations.append(value.i.observe { if $0 == 1 { observations[1].dispose() } })
        observations.append(value.i.observe { _ in late += 1 })
        value.write(1)
        #expect(late == 1)  // only the initial call
    }
}

/// The actor a test graph lives on.
actor ActorBox {
    static let shared = ActorBox()
    var log: [String] = []
    var observation: Disposable?

    func bind(_ likes: Input<Int>) {
        observation = likes.i.map { "\($0) likes" }.observe { [unowned self] in self.log.append($0) }
    }

    func write(_ input: Input<Int>, _ value: Int) {
        input.write(value)
    }
}

@Suite struct ConcurrencyTests {
    @Test func aGraphRunsOnTheActorItIsGiven() async {
        let graph = Graph(actor: ActorBox.shared)
        let input = Input(0, graph: graph)
        await ActorBox.shared.bind(input)
        await ActorBox.shared.write(input, 3)
        #expect(await ActorBox.shared.log == ["0 likes", "3 likes"])
    }

    @Test @MainActor func writesFromManyThreadsArriveInOrderWithoutRaces() async throws {
        let inputs = (0..<8).map { _ in Input(0) }
        let total = I<Int>.combine(inputs.map(\.i)) { $0.reduce(0, +) }
        var seen: [Int] = []
        let observation = total.observe { seen.append($0) }
        await withTaskGroup(of: Void.self) { group in
            for input in inputs {
                group.addTask {
                    for value in 1...500 { input.send(value) }
                }
            }
        }
        for _ in 0..<10_000 where total.value != 8 * 500 {
            await Task.yield()
        }
        #expect(total.value == 4000)
        #expect(seen == seen.sorted())  // each sender's writes arrive in order, so the total only grows
        #expect(seen.count < 4001)  // writes that arrive together propagate together
        _ = observation
    }
}

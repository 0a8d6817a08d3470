import Testing

@testable import Incremental

/// A small, seedable random generator so that a failing case can be replayed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// How a node of a random graph is computed, so that its value can be recomputed from scratch.
enum Formula {
    case input(Int)
    case map(Int, Int)
    case zip(Int, Int)
    case zip3(Int, Int, Int)
    case pick(Int, Int, Int)  // flatMap: selector even ? first : second

    static func map(_ value: Int, _ factor: Int) -> Int { (value * factor + 1) % 1000 }
    static func zip(_ x: Int, _ y: Int) -> Int { (x + 2 * y) % 1000 }
    static func zip3(_ x: Int, _ y: Int, _ z: Int) -> Int { ((x ^ y) + z) % 1000 }
}

/// A random graph of maps, zips and flatMaps over six inputs, with the formulas to recompute it from scratch.
@MainActor
struct RandomGraph {
    var inputs: [Input<Int>]
    var formulas: [Formula]
    var nodes: [I<Int>]

    init(using random: inout SplitMix64) {
        inputs = (0..<6).map { _ in Input(Int.random(in: 0..<1000, using: &random)) }
        formulas = inputs.indices.map { .input($0) }
        nodes = inputs.map(\.i)
        for _ in 0..<30 {
            let n = nodes.count
            func any() -> Int { Int.random(in: 0..<n, using: &random) }
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                let (source, factor) = (any(), Int.random(in: 1...7, using: &random))
                formulas.append(.map(source, factor))
                nodes.append(nodes[source].map { Formula.map($0, factor) })
            case 1:
                let (x, y) = (any(), any())
                formulas.append(.zip(x, y))
                nodes.append(nodes[x].zip(nodes[y]) { Formula.zip($0, $1) })
            case 2:
                let (x, y, z) = (any(), any(), any())
                formulas.append(.zip3(x, y, z))
                nodes.append(nodes[x].zip(nodes[y], nodes[z]) { Formula.zip3($0, $1, $2) })
            default:
                let (selector, first, second) = (any(), any(), any())
                formulas.append(.pick(selector, first, second))
                let snapshot = nodes
                nodes.append(nodes[selector].flatMap { $0 % 2 == 0 ? snapshot[first] : snapshot[second] })
            }
        }
    }

    /// Every node's value, recomputed from the inputs.
    func scratch() -> [Int] {
        var values: [Int] = []
        for formula in formulas {
            switch formula {
            case .input(let k): values.append(inputs[k].value)
            case .map(let s, let f): values.append(Formula.map(values[s], f))
            case .zip(let x, let y): values.append(Formula.zip(values[x], values[y]))
            case .zip3(let x, let y, let z): values.append(Formula.zip3(values[x], values[y], values[z]))
            case .pick(let s, let a, let b): values.append(values[s] % 2 == 0 ? values[a] : values[b])
            }
        }
        return values
    }

    /// Writes one to three random inputs in one batch; answers what was written.
    func writeRandomly(using random: inout SplitMix64) -> [String] {
        let writes = Int.random(in: 1...3, using: &random)
        var log: [String] = []
        Graph.main.batch {
            for _ in 0..<writes {
                let k = Int.random(in: 0..<inputs.count, using: &random)
                let v = Int.random(in: 0..<1000, using: &random)
                log.append("in\(k)=\(v) (was \(inputs[k].value))")
                inputs[k].write(v)
            }
        }
        return log
    }
}

@MainActor @Suite struct PropertyTests {
    @Test(arguments: 0..<60)
    func randomGraphsMatchFromScratchAndFireOncePerChange(seed: UInt64) {
        var random = SplitMix64(state: seed)
        let graph = RandomGraph(using: &random)
        let nodes = graph.nodes
        func scratch() -> [Int] { graph.scratch() }

        var fired = Array(repeating: 0, count: nodes.count)
        var inconsistent = 0
        var observations: [Disposable] = []
        for (index, node) in nodes.enumerated() {
            observations.append(
                node.observe { value in
                    fired[index] += 1
                    // Every observer runs after the whole graph has settled.
                    if scratch()[index] != value { inconsistent += 1 }
                })
        }
        for _ in 0..<25 {
            let before = scratch()
            fired = Array(repeating: 0, count: nodes.count)
            let log = graph.writeRandomly(using: &random)
            let after = scratch()
            #expect(nodes.map(\.value) == after)
            for index in nodes.indices {
                #expect(
                    fired[index] == (before[index] != after[index] ? 1 : 0),
                    "node \(index), seed \(seed), writes \(log), before \(before[index])")
            }
        }
        #expect(inconsistent == 0)
        _ = observations
    }

    /// Only some values are observed, and which ones changes as it goes (observations start and end between
    /// writes): observed values stay current and fire once per change, unobserved ones are right when read.
    @Test(arguments: 0..<60)
    func partlyObservedGraphsStayRightAsObservationsComeAndGo(seed: UInt64) {
        var random = SplitMix64(state: seed &+ 1000)
        let graph = RandomGraph(using: &random)
        var fired = Array(repeating: 0, count: graph.nodes.count)
        var observations: [Int: Disposable] = [:]
        func observe(_ index: Int) {
            observations[index] = graph.nodes[index].observe { _ in fired[index] += 1 }
        }
        for index in graph.nodes.indices where Bool.random(using: &random) { observe(index) }
        for round in 0..<25 {
            if round % 3 == 0 {
                // Some observations end, others start.
                for index in Array(observations.keys).sorted() where Int.random(in: 0..<4, using: &random) == 0 {
                    observations.removeValue(forKey: index)?.dispose()
                }
                for index in graph.nodes.indices where observations[index] == nil && Bool.random(using: &random) {
                    observe(index)
                }
            }
            let before = graph.scratch()
            fired = Array(repeating: 0, count: graph.nodes.count)
            let log = graph.writeRandomly(using: &random)
            let after = graph.scratch()
            for index in observations.keys {
                #expect(fired[index] == (before[index] != after[index] ? 1 : 0), "node \(index), seed \(seed), \(log)")
            }
            // Read in random order, so that unobserved values are brought up to date from any starting point.
            for index in graph.nodes.indices.shuffled(using: &random) {
                #expect(graph.nodes[index].value == after[index], "node \(index), seed \(seed), \(log)")
            }
        }
        observations.removeAll()
        #expect(graph.inputs.allSatisfy { $0.i.dependentCount == 0 }, "no observation left, no dependent left")
    }

    @Test(arguments: 0..<30)
    func incrementalMapAndFilterMatchRecomputation(seed: UInt64) {
        var random = SplitMix64(state: seed)
        let source = IArray<Int>((0..<5).map { $0 })
        let mapped = source.map { $0 * 3 }
        let evens = mapped.filter { $0 % 2 == 0 }
        var mirror: [Int] = []
        let observation = evens.observe { changes in
            for change in changes {
                switch change {
                case .insert(let value, let index): mirror.insert(value, at: index)
                case .remove(let index): mirror.remove(at: index)
                case .update(let value, let index): mirror[index] = value
                }
            }
        }
        for _ in 0..<60 {
            let count = source.elements.count
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                source.insert(Int.random(in: 0..<100, using: &random), at: Int.random(in: 0...count, using: &random))
            case 1 where count > 0: source.remove(at: Int.random(in: 0..<count, using: &random))
            case 2 where count > 0:
                source.update(Int.random(in: 0..<100, using: &random), at: Int.random(in: 0..<count, using: &random))
            default: break
            }
            let expected = source.elements.map { $0 * 3 }.filter { $0 % 2 == 0 }
            #expect(evens.elements == expected)
            #expect(mirror == expected)
        }
        _ = observation
    }
}

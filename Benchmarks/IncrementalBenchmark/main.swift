import Foundation
import Incremental
import OpenCombine

// Incremental beside OpenCombine doing the same work in the same run: a 50-node chain, a 1,000-input fan-in and a
// diamond. Prints nanoseconds per fired node, throughput ratios and glitch counts, as a Markdown table.

/// How many times each measured loop runs; the fastest run counts (the machines are shared and noisy).
let repetitions = 15

/// Runs `body` `repetitions` times and answers the fastest run's duration in nanoseconds.
func best(_ repetitions: Int = repetitions, _ body: () -> Void) -> Double {
    var fastest = Double.infinity
    for _ in 0..<repetitions {
        let start = ContinuousClock.now
        body()
        let elapsed = ContinuousClock.now - start
        let ns = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        fastest = min(fastest, ns)
    }
    return fastest
}

struct Row {
    var name: String
    var firedPerOp: Int
    var ops: Int
    var incrementalNs: Double
    var combineNs: Double
    var note: String
}

var rows: [Row] = []
var sink = 0  // keeps results observable so the optimiser cannot drop the work

// 1. A chain of 50 maps: each write fires the input and 50 nodes.
do {
    let writes = 20_000
    let input = Input(0)
    var node = input.i
    for _ in 0..<50 { node = node.map { $0 + 1 } }
    let observation = node.observe { sink &+= $0 }
    var value = 0
    let incremental = best {
        for _ in 0..<writes {
            value += 1
            input.write(value)
        }
    }
    let subject = CurrentValueSubject<Int, Never>(0)
    var publisher = subject.eraseToAnyPublisher()
    for _ in 0..<50 { publisher = publisher.map { $0 + 1 }.eraseToAnyPublisher() }
    let cancellable = publisher.sink { sink &+= $0 }
    let combine = best {
        for _ in 0..<writes {
            value += 1
            subject.send(value)
        }
    }
    rows.append(
        Row(
            name: "chain of 50 maps", firedPerOp: 51, ops: writes, incrementalNs: incremental, combineNs: combine,
            note: ""))
    withExtendedLifetime((observation, cancellable)) {}
}

// 2. A fan-in of 1,000 inputs into one sum; one operation changes every input.
// Incremental writes all inputs in one batch, so the sum is computed once (1,001 fired nodes).
// OpenCombine has no batches: its sink fires for each of the 1,000 sends and keeps the sum by difference.
do {
    let rounds = 200
    let inputs = (0..<1000).map { Input($0) }
    let sum = I<Int>.combine(inputs.map(\.i)) { $0.reduce(0, +) }
    var sumFires = 0
    let observation = sum.observe {
        sink &+= $0
        sumFires += 1
    }
    var round = 0
    sumFires = 0
    let incremental = best {
        for _ in 0..<rounds {
            round += 1
            Graph.main.batch {
                for (index, input) in inputs.enumerated() { input.write(index + round) }
            }
        }
    }
    let incrementalFiresPerRound = sumFires / (rounds * repetitions)

    let subjects = (0..<1000).map { CurrentValueSubject<Int, Never>($0) }
    var values = Array(0..<1000)
    var total = values.reduce(0, +)
    var combineFires = 0
    // OpenCombine 0.14 has no Merge or CombineLatest: one sink per input updates the sum, as they would.
    let cancellable = subjects.enumerated().map { index, subject in
        subject.sink { value in
            total += value - values[index]
            values[index] = value
            sink &+= total
            combineFires += 1
        }
    }
    combineFires = 0
    let combine = best {
        for _ in 0..<rounds {
            round += 1
            for (index, subject) in subjects.enumerated() { subject.send(index + round) }
        }
    }
    let combineFiresPerRound = combineFires / (rounds * repetitions)
    rows.append(
        Row(
            name: "fan-in of 1,000 inputs, all changed", firedPerOp: 1001, ops: rounds, incrementalNs: incremental,
            combineNs: combine,
            note:
                "sum observer fires per round: Incremental \(incrementalFiresPerRound), OpenCombine \(combineFiresPerRound)"
        ))
    withExtendedLifetime((observation, cancellable)) {}
}

// 3. The diamond a → b, a → c, (b, c) → d: count d's firings and the inconsistent (b, c) pairs it sees.
do {
    let writes = 100_000
    let a = Input(0)
    let b = a.i.map { $0 + 1 }
    let c = a.i.map { $0 * 2 }
    var incrementalFires = 0
    var incrementalGlitches = 0
    let d = b.zip(c) { ($0, $1) }
    let observation = d.observe { pair in
        incrementalFires += 1
        if pair.1 != (pair.0 - 1) * 2 { incrementalGlitches += 1 }
    }
    incrementalFires = 0
    var value = 0
    let incremental = best(1) {
        for _ in 0..<writes {
            value += 1
            a.write(value)
        }
    }

    let subject = CurrentValueSubject<Int, Never>(0)
    var combineFires = 0
    var combineGlitches = 0
    // OpenCombine 0.14 has no CombineLatest; this is what it does: emit on either side with the other's latest.
    var latest = (1, 0)
    func emit() {
        combineFires += 1
        if latest.1 != (latest.0 - 1) * 2 { combineGlitches += 1 }
    }
    let cancellable = [
        subject.map { $0 + 1 }.sink {
            latest.0 = $0
            emit()
        },
        subject.map { $0 * 2 }.sink {
            latest.1 = $0
            emit()
        },
    ]
    combineFires = 0
    let combine = best(1) {
        for _ in 0..<writes {
            value += 1
            subject.send(value)
        }
    }
    rows.append(
        Row(
            name: "diamond a→b, a→c, (b,c)→d", firedPerOp: 4, ops: writes, incrementalNs: incremental,
            combineNs: combine,
            note:
                "per write, d fires: Incremental \(Double(incrementalFires) / Double(writes)) with \(incrementalGlitches) glitches; "
                + "OpenCombine combine-latest \(Double(combineFires) / Double(writes)) with \(combineGlitches) glitches"
        ))
    withExtendedLifetime((observation, cancellable)) {}
}

print(
    "| graph | fired nodes per op | Incremental ns per fired node | Incremental ops/s | OpenCombine ops/s | throughput × OpenCombine | notes |"
)
print("|---|---|---|---|---|---|---|")
for row in rows {
    let perNode = row.incrementalNs / Double(row.ops * row.firedPerOp)
    let incrementalOps = Double(row.ops) / (row.incrementalNs / 1e9)
    let combineOps = Double(row.ops) / (row.combineNs / 1e9)
    print(
        "| \(row.name) | \(row.firedPerOp) | \(String(format: "%.0f", perNode)) | \(String(format: "%.0f", incrementalOps)) | "
            + "\(String(format: "%.0f", combineOps)) | \(String(format: "%.2f", incrementalOps / combineOps)) | \(row.note) |"
    )
}

// 4. A view property bound to a value: Box's key-path binding beside the hand-written observe closure it replaces.
final class View {
    var text = ""
    var label: String?
}

do {
    let writes = 200_000
    let input = Input(0)
    let text = input.i.map { String($0) }
    let view = View()
    func perChange(_ body: () -> Void) -> Double { best(repetitions, body) / Double(writes) }
    var value = 0
    func writeAll() {
        for _ in 0..<writes {
            value += 1
            input.write(value)
        }
    }
    let handWritten: Double = {
        let observation = text.observe { [weak view] in view?.text = $0 }
        defer { observation.dispose() }
        return perChange(writeAll)
    }()
    let keyPath: Double = {
        let box = Box(view)
        box.bind(\.text, to: text)
        defer { box.unbindAll() }
        return perChange(writeAll)
    }()
    let setter: Double = {
        let box = Box(view)
        box.bind(\.text, to: text) { view, text in view.text = text }
        defer { box.unbindAll() }
        return perChange(writeAll)
    }()
    let optional: Double = {
        let box = Box(view)
        box.bind(\.label, to: text)
        defer { box.unbindAll() }
        return perChange(writeAll)
    }()
    let handWrittenAgain: Double = {
        let observation = text.observe { [weak view] in view?.text = $0 }
        defer { observation.dispose() }
        return perChange(writeAll)
    }()
    let baseline = min(handWritten, handWrittenAgain)
    sink &+= view.text.count + (view.label?.count ?? 0)
    print("")
    print(
        "| binding of a view property (a write, a map to String, the property set) | ns per change | × hand-written |")
    print("|---|---|---|")
    print(
        "| `observe { [weak view] in view?.text = $0 }` (best of two runs: \(String(format: "%.1f", handWritten)), \(String(format: "%.1f", handWrittenAgain))) | \(String(format: "%.1f", baseline)) | 1.00 |"
    )
    print(
        "| `box.bind(\\.text, to: text)` | \(String(format: "%.1f", keyPath)) | \(String(format: "%.2f", keyPath / baseline)) |"
    )
    print(
        "| `box.bind(\\.text, to: text) { $0.text = $1 }` (the setter written out) | \(String(format: "%.1f", setter)) | \(String(format: "%.2f", setter / baseline)) |"
    )
    print(
        "| `box.bind(\\.label, to: text)` (optional property) | \(String(format: "%.1f", optional)) | \(String(format: "%.2f", optional / baseline)) |"
    )
}

if sink == 42 { print("") }

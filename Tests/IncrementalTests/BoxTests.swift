import Testing

@testable import Incremental

/// Plain classes standing in for views, as Linux has no UIKit.
final class FakeLabel {
    var text: String?
    var isHidden = false
    /// Every text set, in order.
    var texts: [String?] = []

    var shown: String? {
        get { text }
        set {
            text = newValue
            texts.append(newValue)
        }
    }
}

final class FakeSpinner {
    private(set) var isAnimating = false
    private(set) var starts = 0

    func startAnimating() {
        isAnimating = true
        starts += 1
    }

    func stopAnimating() { isAnimating = false }
}

final class FakeView {
    var subviews: [AnyObject] = []
    func addSubview(_ view: AnyObject) { subviews.append(view) }
}

/// A cell that owns the box of its own bindings and is bound to one item after another, as table cells are reused.
final class FakeCell {
    let label = FakeLabel()
    private(set) lazy var box = Box(owner: self)

    func bind(to likes: I<Int>) {
        box.bind(\.label.shown, to: likes) { "\($0) likes" }
    }
}

@MainActor @Suite struct BoxTests {
    @Test func aBindingAppliesTheCurrentValueAndEveryChange() {
        let title = Input("first")
        let box = Box(FakeLabel())
        box.bind(\.text, to: title.i)
        #expect(box.unbox.text == "first")
        title.write("second")
        #expect(box.unbox.text == "second")
        let count = Input(3)
        box.bind(\.isHidden, to: count.i.map { $0 == 0 })
        count.write(0)
        #expect(box.unbox.isHidden)
    }

    @Test func releasingTheBoxEndsItsBindingsAndReleasesTheView() {
        let title = Input("a")
        weak var weakBox: Box<FakeLabel>?
        weak var weakLabel: FakeLabel?
        var calls = 0
        do {
            let box = Box(FakeLabel())
            weakBox = box
            weakLabel = box.unbox
            box.bind(
                \.text,
                to: title.i.map {
                    calls += 1
                    return $0
                })
            title.write("b")
            #expect(box.unbox.text == "b")
        }
        #expect(weakBox == nil)
        #expect(weakLabel == nil)
        let before = calls
        title.write("c")
        title.write("d")
        #expect(calls == before, "no binding runs after its box is released")
    }

    @Test func aViewKeptElsewhereStopsChangingWhenItsBoxGoes() {
        let title = Input("a")
        let label = FakeLabel()
        var box: Box<FakeLabel>? = Box(label)
        box?.bind(\.shown, to: title.i)
        title.write("b")
        box = nil
        title.write("c")
        #expect(label.texts == ["a", "b"])
    }

    @Test func rebindingAKeyPathReplacesTheOldBinding() {
        let first = Input(1)
        let second = Input(10)
        let box = Box(FakeLabel())
        box.bind(\.shown, to: first.i) { "\($0)" }
        box.bind(\.shown, to: second.i) { "\($0)" }
        first.write(2)
        second.write(11)
        #expect(box.unbox.texts == ["1", "10", "11"])
        box.unbind(\.shown)
        second.write(12)
        #expect(box.unbox.text == "11")
    }

    @Test func aWrittenOutSetterBindsAndRebindsLikeAKeyPath() {
        let first = Input("a")
        let second = Input("x")
        let box = Box(FakeLabel())
        box.bind(\.shown, to: first.i) { label, text in label.shown = text.uppercased() }
        first.write("b")
        // Either form replaces the binding of the same key path.
        box.bind(\.shown, to: second.i)
        first.write("c")
        second.write("y")
        #expect(box.unbox.texts == ["A", "B", "x", "y"])
    }

    @Test func optionalPropertiesTakePlainValues() {
        let name = Input("alice")
        let box = Box(FakeLabel())
        box.bind(\.text, to: name.i)
        #expect(box.unbox.text == "alice")
    }

    @Test func aParentBoxKeepsItsChildrenAndTheirBindings() {
        let loading = Input(true)
        let title = Input("hello")
        weak var weakChild: Box<FakeLabel>?
        var parent: Box<FakeView>? = Box(FakeView())
        do {
            let label = Box(FakeLabel())
            weakChild = label
            label.bind(\.text, to: title.i)
            let spinner = Box(FakeSpinner())
            spinner.observe(loading.i) { view, loading in loading ? view.startAnimating() : view.stopAnimating() }
            parent?.add(label) { $0.addSubview($1) }
            parent?.add(spinner) { $0.addSubview($1) }
        }
        #expect(weakChild != nil, "the parent keeps its child's box")
        #expect(parent?.unbox.subviews.count == 2)
        title.write("world")
        #expect(weakChild?.unbox.text == "world")
        parent = nil
        #expect(weakChild == nil)
    }

    /// The episode's example: a spinner bound to whether a request is under way spins during it and stops after.
    @Test func theLoadingIndicatorSpinsWhileLoading() async {
        let isLoading = Input(false)
        let spinner = Box(FakeSpinner())
        spinner.observe(isLoading.i) { view, loading in loading ? view.startAnimating() : view.stopAnimating() }
        #expect(!spinner.unbox.isAnimating)
        func load() async -> String {
            isLoading.write(true)
            defer { isLoading.write(false) }
            #expect(spinner.unbox.isAnimating)
            await Task.yield()
            return "feed"
        }
        #expect(await load() == "feed")
        #expect(!spinner.unbox.isAnimating)
        #expect(spinner.unbox.starts == 1)
    }

    @Test func aListFollowsAnIncrementalArrayWhileItsBoxLives() {
        let items = IArray([1, 2])
        final class Table { var rows: [Int] = [] }
        var box: Box<Table>? = Box(Table())
        let table = box!.unbox
        table.rows = items.elements
        box?.observe(items) { table, _ in table.rows = items.elements }
        items.append(3)
        #expect(table.rows == [1, 2, 3])
        box = nil
        items.append(4)
        #expect(table.rows == [1, 2, 3])
    }

    @Test func aReusedCellNeverShowsThePreviousItemsChanges() {
        let firstPost = Input(1)
        let secondPost = Input(20)
        let cell = FakeCell()
        cell.bind(to: firstPost.i)
        cell.bind(to: secondPost.i)
        firstPost.write(2)
        firstPost.write(3)
        secondPost.write(21)
        #expect(cell.label.texts == ["1 likes", "20 likes", "21 likes"])
    }

    @Test func aCellOwningItsBoxIsReleasedWithIt() {
        let likes = Input(1)
        weak var weakCell: FakeCell?
        do {
            let cell = FakeCell()
            weakCell = cell
            cell.bind(to: likes.i)
        }
        #expect(weakCell == nil, "a box made with Box(owner:) does not keep its object")
        likes.write(2)
    }
}

/// Nodes waiting to be recomputed, in buckets by height so that the lowest is always next; a node is in it at
/// most once. A node whose height was raised while waiting is moved up lazily when its old bucket is reached.
///
/// A lone node waits in a slot of its own, outside the buckets: along a chain of values (the common case) each
/// step queues exactly one dependent, and the slot spares the bucket arrays' bookkeeping.
struct NodeQueue {
    private var lone: AnyNode?
    private var buckets: [[AnyNode]] = []
    private var lowest = 0
    private var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func insert(_ node: consuming AnyNode) {
        guard !node.queued else { return }
        node.queued = true
        count += 1
        if count == 1 {
            lone = node
            return
        }
        if let waiting = lone.take() { place(waiting) }
        place(node)
    }

    private mutating func place(_ node: consuming AnyNode) {
        let height = node.height
        while buckets.count <= height { buckets.append([]) }
        if height < lowest { lowest = height }
        buckets[height].append(node)
    }

    mutating func popMin() -> AnyNode? {
        if let node = lone.take() {
            node.queued = false
            count = 0
            return node
        }
        while count > 0 {
            while buckets[lowest].isEmpty { lowest += 1 }
            let node = buckets[lowest].removeLast()
            if node.height != lowest {
                place(node)  // its height grew while it waited
                continue
            }
            node.queued = false
            count -= 1
            return node
        }
        lowest = 0
        return nil
    }
}

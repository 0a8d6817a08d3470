/// Which slice of a keyset-paginated list to read.
///
/// Keys are the stable, increasing row keys of the list's order, so pages never repeat or skip an item when items
/// are added or removed between requests.
public struct PageRequest: Sendable, Equatable {
    /// Where a page starts.
    public enum Position: Sendable, Equatable {
        /// The first page.
        case start
        /// The items that come after the item with this key in the list's order (older posts; later comments).
        case after(Int64)
        /// For newest-first lists: only items newer than the item with this key (pull to refresh).
        case newerThan(Int64)

        /// Whether this continues a list downwards (a page of older items).
        public var isAfter: Bool {
            if case .after = self { return true }
            return false
        }
    }

    public var position: Position
    /// How many items at most.
    public var limit: Int

    public init(position: Position = .start, limit: Int) {
        self.position = position
        self.limit = limit
    }
}

/// One page of items with the keys to continue from.
public struct PageResult<Item: Sendable>: Sendable {
    public var items: [Item]
    /// The key to pass as `.after` for the next page, or nil at the end of the list.
    public var nextKey: Int64?
    /// The key of the first (newest) item, to pass as `.newerThan`; for newest-first lists only.
    public var newestKey: Int64?

    public init(items: [Item], nextKey: Int64?, newestKey: Int64? = nil) {
        self.items = items
        self.nextKey = nextKey
        self.newestKey = newestKey
    }
}

/// One page of a list, with opaque cursors to move through it.
public struct Page<Item: Codable & Sendable>: Codable, Sendable {
    public var items: [Item]
    /// Pass as `cursor` to get the next page (older posts, or the next part of the list); nil at the end.
    public var nextCursor: String?
    /// For post lists: pass as `cursor` to get only items newer than this page's first one (pull to refresh).
    public var newerCursor: String?

    public init(items: [Item], nextCursor: String?, newerCursor: String? = nil) {
        self.items = items
        self.nextCursor = nextCursor
        self.newerCursor = newerCursor
    }
}

extension Page: Equatable where Item: Equatable {}

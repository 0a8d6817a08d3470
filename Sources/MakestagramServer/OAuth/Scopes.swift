/// OAuth 2 scopes as Mastodon defines them: `read`, `write`, `follow`, `push`, `profile` and the granular
/// `read:statuses`, `write:favourites`, … A granted set allows a granular scope when it holds it or its parent
/// (`write` allows `write:favourites`); the deprecated `follow` allows reading and changing follows, blocks and mutes.
struct Scopes: Sendable, Equatable, CustomStringConvertible {
    /// Every scope the server knows; anything else in a request is refused (`invalid_scope`).
    static let known: Set<String> = [
        "read", "write", "follow", "push", "profile",
        "read:accounts", "read:blocks", "read:bookmarks", "read:favourites", "read:filters", "read:follows",
        "read:lists", "read:mutes", "read:notifications", "read:search", "read:statuses",
        "write:accounts", "write:blocks", "write:bookmarks", "write:conversations", "write:favourites",
        "write:filters", "write:follows", "write:lists", "write:media", "write:mutes", "write:notifications",
        "write:reports", "write:statuses",
    ]

    /// What the deprecated `follow` scope stands for.
    static let followScopes: Set<String> = [
        "read:follows", "write:follows", "read:blocks", "write:blocks", "read:mutes", "write:mutes",
    ]

    let values: Set<String>

    /// The scopes of a space-separated list (OAuth's form; Mastodon also accepts `+` and commas), or nil when one is
    /// unknown. An empty list means `read`, as Mastodon does.
    init?(_ text: String) {
        let values = Set(text.split(whereSeparator: { $0 == " " || $0 == "+" || $0 == "," }).map(String.init))
        guard values.isSubset(of: Self.known) else { return nil }
        self.values = values.isEmpty ? ["read"] : values
    }

    init(values: Set<String>) {
        self.values = values
    }

    /// Space-separated, sorted: how tokens and answers carry them.
    var description: String { values.sorted().joined(separator: " ") }

    /// Whether the set allows `required` (a scope or a granular scope).
    func allows(_ required: String) -> Bool {
        if values.contains(required) { return true }
        if let colon = required.firstIndex(of: ":"), values.contains(String(required[..<colon])) { return true }
        if values.contains("follow"), Self.followScopes.contains(required) { return true }
        // Reading one's own account is also what `profile` grants.
        if required == "read:accounts:self", values.contains("profile") || allows("read:accounts") { return true }
        return false
    }

    /// Whether every scope of `other` is allowed by this set (a request's scopes within an app's).
    func covers(_ other: Scopes) -> Bool {
        other.values.allSatisfy { allows($0) }
    }
}

import Foundation
import MakestagramAPI

/// How people are found by name, the same on every store.
///
/// Each user has one search key: the username, a line feed, and the display name folded (case, accents, widths and
/// compatibility forms), so that "élodie", "ELODIE" and "Ｅｌｏｄｉｅ" find one another. A query of at least
/// ``substringMinimum`` characters matches anywhere in the key: two characters through an index of each key's pairs
/// of neighbouring characters (`user_bigrams` on SQLite, an expression index on PostgreSQL), three or more through a
/// trigram index (FTS5's `trigram` on SQLite, `pg_trgm` on PostgreSQL); a single character matches the start of
/// usernames, through the usernames' own index, as every key contains most letters. Results are ranked: an exact username or display name, then a username or a word
/// of the display name that starts with the query, then the rest; within each, the people the viewer follows first,
/// then shorter usernames.
///
/// So that a common fragment ("son" in 20,000 names) costs no more than a rare one, the ranking runs over a bounded
/// set of candidates: at most ``candidateLimit`` matches from the trigram index (in the index's order), as many
/// usernames that start with the query, and every match among the people the viewer follows. Beyond that many
/// matches, the rest of the list is a sample; a longer query narrows it.
public enum PeopleSearch {
    /// The most matches of the trigram index that are ranked (Benchmarks/HISTORY.md, "People search").
    public static let candidateLimit = 500
    /// The shortest query matched anywhere in a name ("ob" finds bob).
    public static let substringMinimum = 2
    /// The shortest query matched through the trigram index; two characters go through the pairs' index.
    public static let trigramMinimum = 3
    /// The longest query, in characters (a display name's limit).
    public static let maximumLength = 50

    /// `text` with case, accents and widths folded and compatibility forms composed.
    public static func fold(_ text: String) -> String {
        text.precomposedStringWithCompatibilityMapping
            .folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .lowercased()
    }

    /// The search key stored with a user.
    public static func key(username: String, displayName: String) -> String {
        username + "\n" + fold(displayName)
    }

    /// `text` escaped for a LIKE pattern whose escape character is a backslash.
    public static func likeEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}

/// Whom to suggest following, the same on every store: the people followed by those the viewer follows (by how many
/// of them), then the most followed; never the viewer or someone they follow. With a related profile (the one being
/// looked at), the people it follows come first and it is left out itself.
public enum FollowSuggestions {
    /// `ranked` (the store's candidates, best first), then `popular` for the places left, each user once.
    public static func merge(ranked: [UserSummary], popular: [UserSummary], limit: Int) -> [UserSummary] {
        var chosen: [UserSummary] = []
        var seen = Set<Int64>()
        for user in ranked + popular where chosen.count < limit && seen.insert(user.id).inserted {
            chosen.append(user)
        }
        return chosen
    }
}

import ArgumentParser
import Foundation
import MakestagramAPI
import MakestagramKit

/// `makestagram feed`: the home timeline (or one user's posts) as a table, or as JSON for scripts.
struct Feed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show your home feed (you and whom you follow), newest first.",
        discussion: "♥ marks posts you like. Use --user for one person's posts and --json for scripts.")

    @Option(help: "Show this user's posts instead of your feed.") var user: String?
    @Option(help: "How many posts (1–100).") var limit = 20
    @Option(help: "Continue from a page's nextCursor (with --json).") var cursor: String?
    @Flag(help: "Print the page as JSON ({items, nextCursor, newerCursor}).") var json = false
    @OptionGroup var options: ClientOptions

    func validate() throws {
        guard (1...Limits.maxPageSize).contains(limit) else { throw ValidationError("--limit must be 1 to 100") }
    }

    func run() async throws {
        try await ClientContext.run(options) { context in
            let client = context.app.client
            let page =
                if let user {
                    try await client.posts(by: user.lowercased(), cursor: cursor, limit: limit)
                } else {
                    try await client.timeline(cursor: cursor, limit: limit)
                }
            if json { return try Output.json(page) }
            if page.items.isEmpty {
                return Output.line(
                    user == nil
                        ? "Your feed is empty. Follow people with `makestagram follow USERNAME`, or post a photo."
                        : "\(user!) has no posts yet.")
            }
            for line in Self.table(page.items) { Output.line(line) }
            if page.nextCursor != nil { Output.note("(more: --limit or --json with --cursor)") }
        }
    }

    /// Rows of `ID AUTHOR LIKES COMMENTS AGE CAPTION`, the caption (after `[3 photos]` for an album) cut to fit 100
    /// columns.
    static func table(_ posts: [Post], now: Date = Date()) -> [String] {
        let rows = posts.map { post in
            [
                (post.viewerHasLiked ? "♥ " : "  ") + String(post.id), post.author.username,
                post.likeCount.map(String.init) ?? "hidden",
                String(post.commentCount), age(post.createdAt, now: now),
                (post.photos.count > 1 ? "[\(post.photos.count) photos] " : "")
                    + post.caption.replacingOccurrences(of: "\n", with: " "),
            ]
        }
        let header = ["  ID", "AUTHOR", "LIKES", "COMMENTS", "AGE", "CAPTION"]
        let widths = (0..<5).map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            var line = ""
            for column in 0..<5 {
                let cell = row[column]
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                line += (column == 0 || column == 1 ? cell + padding : padding + cell) + "  "
            }
            let room = max(10, 100 - line.count)
            let caption = row[5]
            return line + (caption.count > room ? String(caption.prefix(room - 1)) + "…" : caption)
        }
    }

    /// "now", "5m", "3h", "2d" or "2026-11-02".
    static func age(_ date: Date, now: Date) -> String {
        let seconds = max(0, now.timeIntervalSince(date))
        switch seconds {
        case ..<60: return "now"
        case ..<3600: return "\(Int(seconds / 60))m"
        case ..<86400: return "\(Int(seconds / 3600))h"
        case ..<(7 * 86400): return "\(Int(seconds / 86400))d"
        default: return String(ISO8601DateFormatter().string(from: date).prefix(10))
        }
    }
}

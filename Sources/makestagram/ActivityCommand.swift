import ArgumentParser
import Foundation
import MakestagramAPI
import MakestagramKit

/// `makestagram activity`: what others did to you, a line per group, newest first; marks what it printed as read.
struct ActivityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activity",
        abstract: "Show who liked or commented on your photos and who started following you.",
        discussion: "• marks what you had not seen; printing it marks it as read (--keep-unread leaves it).")

    @Option(help: "How many groups (1–100).") var limit = 20
    @Option(help: "Continue from a page's nextCursor (with --json).") var cursor: String?
    @Flag(help: "Leave what is printed unread.") var keepUnread = false
    @Flag(help: "Print the page as JSON ({items, nextCursor}).") var json = false
    @OptionGroup var options: ClientOptions

    func validate() throws {
        guard (1...Limits.maxPageSize).contains(limit) else { throw ValidationError("--limit must be 1 to 100") }
    }

    func run() async throws {
        try await ClientContext.run(options) { context in
            let client = context.app.client
            let page = try await client.activity(cursor: cursor, limit: limit)
            if json {
                try Output.json(page)
            } else if page.items.isEmpty {
                Output.line("Nothing yet: likes, comments and follows from others show here.")
            } else {
                let now = Date()
                for group in page.items { Output.line(Self.line(group, now: now)) }
                if page.nextCursor != nil { Output.note("(more: --limit or --json with --cursor)") }
            }
            if !keepUnread, cursor == nil, let newest = page.items.first, page.items.contains(where: \.unread) {
                _ = try await client.markActivityRead(through: newest.latestId)
            }
        }
    }

    /// "• 3h  bob and 2 others liked your photo (post 42)".
    static func line(_ group: ActivityGroup, now: Date) -> String {
        let names = group.actors.map(\.username)
        let who =
            switch group.actorCount {
            case 1: names[0]
            case 2 where names.count == 2: "\(names[0]) and \(names[1])"
            default: "\(names[0]) and \(group.actorCount - 1) other\(group.actorCount == 2 ? "" : "s")"
            }
        let what =
            switch group.kind {
            case .like: "liked your photo"
            case .comment: "commented: \"\((group.comment?.text ?? "").replacingOccurrences(of: "\n", with: " "))\""
            case .follow: "started following you"
            case .followRequest: "asked to follow you (makestagram approve \(names[0]) or decline \(names[0]))"
            case .mention:
                group.comment.map { "mentioned you: \"\($0.text.replacingOccurrences(of: "\n", with: " "))\"" }
                    ?? "mentioned you in a post"
            }
        let post = group.post.map { " (post \($0.id))" } ?? ""
        return
            "\(group.unread ? "•" : " ") \(Feed.age(group.createdAt, now: now).padding(toLength: 4, withPad: " ", startingAt: 0)) \(who) \(what)\(post)"
    }
}

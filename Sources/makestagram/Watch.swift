import ArgumentParser
import Foundation
import MakestagramAPI
import MakestagramKit

/// `makestagram watch`: prints live events as they arrive, until interrupted.
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print likes, comments and new posts as they happen (Ctrl-C stops).",
        discussion: """
            Follows the posts of your feed's first page and any given with --post; new posts from you and whom you \
            follow arrive on their own. Reconnects by itself if the connection drops.
            """)

    @Option(name: .customLong("post"), help: "Also follow this post (repeatable).") var posts: [Int64] = []
    @Flag(help: "Print each event as one line of JSON.") var json = false
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await ClientContext.run(options) { context in
            let app = context.app
            let feed = app.homeFeed
            try await feed.refresh()
            app.live.watch(posts)
            app.live.onMessage = { message in Self.print(message, json: json) }
            let statusWatch = app.live.status.observe { status in
                switch status {
                case .live:
                    Output.note("Watching as \(app.user.value?.username ?? "?") on \(context.server.absoluteString)…")
                case .waitingToReconnect: Output.note("Connection lost; reconnecting…")
                case .sessionEnded: Output.note("Your session ended. Run `makestagram login USERNAME` again.")
                case .stopped, .connecting: break
                }
            }
            app.live.start()
            // Runs until interrupted, or until the session ends.
            while app.live.status.value != .sessionEnded {
                try await Task.sleep(for: .milliseconds(250))
            }
            _ = (feed, statusWatch)
            throw ExitCode.failure
        }
    }

    @MainActor
    static func print(_ message: LiveServerMessage, json: Bool) {
        if json {
            if let data = try? JSONCoding.encoder().encode(message) {
                Output.line(String(decoding: data, as: UTF8.self))
            }
            return
        }
        let time = String(ISO8601DateFormatter().string(from: Date()).dropFirst(11).prefix(8))
        let text: String? =
            switch message {
            case .liked(let like):
                "♥ \(like.actor.username) liked post \(like.postId) — \(likes(like.likeCount))"
            case .unliked(let like):
                "♡ \(like.actor.username) unliked post \(like.postId) — \(likes(like.likeCount))"
            case .commentCreated(let event):
                "💬 \(event.comment.author.username) on post \(event.postId): \"\(event.comment.text)\" — "
                    + count(event.commentCount, "comment")
            case .commentDeleted(let event):
                "✖ comment \(event.commentId) deleted on post \(event.postId) — \(count(event.commentCount, "comment"))"
            case .postCreated(let post):
                "📷 new post \(post.id) by \(post.author.username)"
                    + (post.caption.isEmpty ? "" : ": \"\(post.caption)\"")
            case .postEdited(let event): "✎ post \(event.postId) now reads: \"\(event.caption)\""
            case .photoChanged(let event): "✎ post \(event.postId)'s photo changed (its description or renditions)"
            case .likeCountVisibility(let event):
                event.likeCountHidden
                    ? "✎ post \(event.postId) hides its like count"
                    : "✎ post \(event.postId) shows its like count again"
            case .postDeleted(let event): "✖ post \(event.postId) deleted"
            case .userUpdated(let user): "👤 \(user.username) is now \"\(user.displayName)\""
            case .userRemoved(let removed): "✖ user \(removed.userId)'s account was closed; their posts are gone"
            case .activityChanged(let unread):
                "🔔 \(count(unread.unreadCount, "unread action")) in your activity (makestagram activity)"
            case .error(let error): "! \(error.detail)"
            case .subscribed(let answer):
                {
                    Output.note("Following \(count(answer.posts.count, "post")) for likes and comments.")
                    return nil
                }()
            case .hello, .snapshot: nil
            }
        if let text { Output.line("\(time)  \(text)") }
    }

    /// "3 likes", or "likes hidden" when the author hides the count.
    static func likes(_ number: Int?) -> String {
        number.map { count($0, "like") } ?? "likes hidden"
    }

    static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}

import ArgumentParser
import Foundation
import MakestagramAPI

/// `makestagram moderate …`: the reports queue and the moderators' actions (for moderators only).
struct Moderate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "For moderators: the reports queue, removing posts, suspending users, the moderation log.",
        discussion: "Moderators are made on the server's machine with `makestagram admin grant USERNAME`.",
        subcommands: [Reports.self, Dismiss.self, Remove.self, Suspend.self, Unsuspend.self, Log.self])

    struct Reports: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List reported posts not yet handled, the oldest first.")
        @Option(help: "How many posts to list.") var limit = 20
        @Flag(help: "Print the queue as JSON.") var json = false
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await ClientContext.run(options) { context in
                let page = try await context.app.client.reportQueue(limit: limit)
                if json { return try Output.json(page.items) }
                if page.items.isEmpty { return Output.line("No reports wait.") }
                for item in page.items {
                    let caption = item.post.caption.isEmpty ? "" : " \"\(item.post.caption.prefix(60))\""
                    Output.line(
                        "post \(item.post.id) by \(item.post.author.username)\(caption) — "
                            + "\(item.reportCount) report(s) since \(item.firstReportedAt.formatted())")
                    for report in item.reports { Output.line("    \(report.reporter.username): \(report.reason)") }
                }
            }
        }
    }

    struct Dismiss: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Dismiss a post's reports: the post stays.")
        @Argument(help: "The post's ID.") var post: Int64
        @Option(help: "Why, for the moderation log.") var reason: String?
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await ClientContext.run(options) { context in
                try await context.app.client.dismissReports(of: post, reason: reason)
                Output.line("Dismissed the reports of post \(post).")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a post, with its likes and comments.")
        @Argument(help: "The post's ID.") var post: Int64
        @Option(help: "Why, for the moderation log.") var reason: String?
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await ClientContext.run(options) { context in
                try await context.app.client.removePost(post, reason: reason)
                Output.line("Removed post \(post).")
            }
        }
    }

    struct Suspend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Suspend a user: logged out everywhere, their posts and comments hidden, log-in refused.")
        @Argument(help: "The user's username.") var username: String
        @Option(help: "Why, for the moderation log.") var reason: String?
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await ClientContext.run(options) { context in
                try await context.app.client.suspend(username, reason: reason)
                Output.line("Suspended \(username).")
            }
        }
    }

    struct Unsuspend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lift a user's suspension.")
        @Argument(help: "The user's username.") var username: String
        @Option(help: "Why, for the moderation log.") var reason: String?
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await ClientContext.run(options) { context in
                try await context.app.client.unsuspend(username, reason: reason)
                Output.line("Lifted the suspension of \(username).")
            }
        }
    }

    struct Log: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "What moderators did, newest first.")
        @Option(help: "How many entries to list.") var limit = 20
        @Flag(help: "Print the log as JSON.") var json = false
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await ClientContext.run(options) { context in
                let page = try await context.app.client.moderationLog(limit: limit)
                if json { return try Output.json(page.items) }
                for entry in page.items {
                    let target = [entry.username.map { "user \($0)" }, entry.postId.map { "post \($0)" }]
                        .compactMap { $0 }.joined(separator: ", ")
                    let reason = entry.reason.map { " — \($0)" } ?? ""
                    Output.line(
                        "\(entry.createdAt.formatted())  \(entry.moderator ?? "(operator)")  \(entry.action)  "
                            + "\(target)\(reason)")
                }
            }
        }
    }
}

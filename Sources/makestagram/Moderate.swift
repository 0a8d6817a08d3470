import ArgumentParser
import Foundation
import MakestagramAPI

/// `makestagram moderate …`: the reports queue and the moderators' actions (for moderators only).
struct Moderate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "For moderators: the reports queue, removing posts, suspending users, blocking servers, the moderation log.",
        discussion: "Moderators are made on the server's machine with `makestagram admin grant USERNAME`.",
        subcommands: [
            Reports.self, Dismiss.self, Remove.self, Suspend.self, Unsuspend.self, Servers.self, BlockServer.self,
            UnblockServer.self, Deliveries.self, Retry.self, RotateKey.self, Log.self,
        ])

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

    struct Servers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the servers blocked for everyone here, the most recently blocked first.")
        @Flag(help: "Print the list as JSON.") var json = false
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await ClientContext.run(options) { context in
                let blocks = try await context.app.client.serverBlocks().blocks
                if json { return try Output.json(blocks) }
                if blocks.isEmpty { return Output.line("No server is blocked.") }
                for block in blocks {
                    let reason = block.reason.map { " — \($0)" } ?? ""
                    Output.line(
                        "\(block.domain)  \(block.severity.rawValue)  since \(block.createdAt.formatted())\(reason)")
                }
            }
        }
    }

    struct BlockServer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "block-server",
            abstract: "Suspend another server (and its subdomains) for everyone here, or limit it with --limit.",
            discussion:
                "A suspension refuses everything from the server and removes its people's posts, likes, comments and "
                + "follows here. A limit shows their posts only to those who follow them.")
        @Argument(help: "The server's host name, such as example.social.") var domain: String
        @Flag(help: "Limit it instead of suspending it.") var limit = false
        @Option(help: "Why, for the moderation log.") var reason: String?
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await ClientContext.run(options) { context in
                let blocks = try await context.app.client.moderateServer(
                    domain, severity: limit ? .limit : .suspend, reason: reason)
                let name = blocks.blocks.first?.domain ?? domain
                Output.line(limit ? "Limited \(name)." : "Suspended \(name).")
            }
        }
    }

    struct UnblockServer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unblock-server",
            abstract: "Lift the block of a server: its people can be found again (what was removed stays removed).")
        @Argument(help: "The server's host name.") var domain: String
        @Option(help: "Why, for the moderation log.") var reason: String?
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await ClientContext.run(options) { context in
                _ = try await context.app.client.liftServerBlock(domain, reason: reason)
                Output.line("Lifted the block of \(domain).")
            }
        }
    }

    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "How deliveries to each other server go, the servers failing longest first.")
        @Flag(help: "Print the list as JSON.") var json = false
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await ClientContext.run(options) { context in
                let servers = try await context.app.client.deliveryServers().servers
                if json { return try Output.json(servers) }
                if servers.isEmpty { return Output.line("Nothing has been sent to another server yet.") }
                for server in servers {
                    var state =
                        if server.givenUp {
                            "not tried until it sends something"
                        } else if let since = server.failingSince {
                            "failing since \(since.formatted()) (\(server.failures) in a row)"
                        } else if let last = server.lastDeliveredAt {
                            "delivering, last \(last.formatted())"
                        } else {
                            "not reached yet"
                        }
                    if server.pending > 0 { state += ", \(server.pending) waiting" }
                    if let error = server.lastError, server.failingSince != nil { state += " — \(error)" }
                    Output.line("\(server.server)  \(state)")
                }
            }
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Try a failing server again now: its waiting deliveries go at once.")
        @Argument(help: "The server, as `moderate deliveries` names it.") var server: String
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await ClientContext.run(options) { context in
                _ = try await context.app.client.retryServer(server)
                Output.line("Trying \(server) again.")
            }
        }
    }

    struct RotateKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-key",
            abstract: "Give a person here a new signing key; their followers' servers are sent it.")
        @Argument(help: "The person's username.") var username: String
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await ClientContext.run(options) { context in
                try await context.app.client.rotateKey(of: username)
                Output.line("\(username) signs with a new key.")
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
                    let target = [
                        entry.username.map { "user \($0)" }, entry.postId.map { "post \($0)" },
                        entry.domain.map { "server \($0)" },
                    ]
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

import ArgumentParser
import MakestagramAPI
import MakestagramKit

/// `makestagram follow USERNAME`: their posts join your feed.
struct Follow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Follow someone: their posts join your feed.")

    @Argument(help: "Whom to follow: a username here, or someone elsewhere as user@server.") var username: String
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await setFollow(username, following: true, options: options)
    }
}

/// `makestagram unfollow USERNAME`.
struct Unfollow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop following someone.")

    @Argument(help: "Whom to stop following.") var username: String
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await setFollow(username, following: false, options: options)
    }
}

/// `makestagram mute USERNAME`: their posts leave your feed and their activity your list; they are not told.
struct Mute: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mute someone: their posts leave your feed and their likes and comments your activity.",
        discussion: "You still follow them, and they are not told. `makestagram unmute` brings it all back.")

    @Argument(help: "Whom to mute.") var username: String
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await ClientContext.run(options) { context in
            _ = try await context.app.client.mute(username.lowercased())
            Output.line("You muted \(username): their posts and activity stay out of your feed and activity.")
        }
    }
}

/// `makestagram unmute USERNAME`; with no name, lists whom you mute.
struct Unmute: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Unmute someone (their posts and activity come back), or list whom you mute.")

    @Argument(help: "Whom to unmute; leave it out to list whom you mute.") var username: String?
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await undoOrList(
            username, verb: ("mute", "unmuted"), options: options, list: { try await $0.mutedUsers(limit: 100) },
            undo: { _ = try await $0.unmute($1) }, done: "their posts and activity are back.")
    }
}

/// `makestagram block USERNAME`: neither sees nor reaches the other until you unblock; they are not told.
struct Block: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Block someone: neither of you sees the other, and they cannot follow or reach you.",
        discussion:
            "You stop following each other and their likes and comments on your posts are removed. They are not "
            + "told. `makestagram unblock` lets them see you again; nothing the block ended comes back by itself.")

    @Argument(help: "Whom to block.") var username: String
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await ClientContext.run(options) { context in
            _ = try await context.app.client.block(username.lowercased())
            Output.line("You blocked \(username): neither of you sees the other now. They are not told.")
        }
    }
}

/// `makestagram unblock USERNAME`; with no name, lists whom you block.
struct Unblock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Unblock someone (nothing the block ended comes back by itself), or list whom you block.")

    @Argument(help: "Whom to unblock; leave it out to list whom you block.") var username: String?
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await undoOrList(
            username, verb: ("block", "unblocked"), options: options, list: { try await $0.blockedUsers(limit: 100) },
            undo: { _ = try await $0.unblock($1) }, done: "nothing the block ended comes back by itself.")
    }
}

/// `makestagram block-server DOMAIN`: blocks a whole server for you.
struct BlockServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "block-server",
        abstract: "Block a whole server (and its subdomains) for yourself: each of its people, now and as they come.",
        discussion: "`makestagram unblock-server DOMAIN` lifts it; blocks you made one by one stay.")

    @Argument(help: "The server's host name, such as example.social.") var domain: String
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await ClientContext.run(options) { context in
            let servers = try await context.app.client.blockServer(domain)
            let name = DomainName.normalized(domain) ?? domain
            Output.line("You block \(name) (\(servers.domains.count) server(s) in all). Its people are not told.")
        }
    }
}

/// `makestagram unblock-server DOMAIN`; with no domain, lists the servers you block.
struct UnblockServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unblock-server", abstract: "Stop blocking a server, or list the servers you block.")

    @Argument(help: "The server to unblock; leave it out to list the servers you block.") var domain: String?
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await ClientContext.run(options) { context in
            guard let domain else {
                let servers = try await context.app.client.blockedServers().domains
                Output.line(servers.isEmpty ? "You block no server." : "You block:")
                for server in servers { Output.line("  \(server)") }
                return
            }
            _ = try await context.app.client.unblockServer(domain)
            Output.line("You no longer block \(domain). Blocks you made one by one stay.")
        }
    }
}

/// Undoes a mute or block (`verb`) of `username`, or with no name lists whom the user mutes or blocks.
private func undoOrList(
    _ username: String?, verb: (present: String, undone: String), options: ClientOptions,
    list: @escaping @Sendable (APIClient) async throws -> Page<UserSummary>,
    undo: @escaping @Sendable (APIClient, String) async throws -> Void, done: String
) async throws {
    try await ClientContext.run(options) { context in
        let client = context.app.client
        guard let username else {
            let people = try await list(client).items
            Output.line(people.isEmpty ? "You \(verb.present) nobody." : "You \(verb.present):")
            for user in people { Output.line("  \(user.username) (\(user.displayName))") }
            return
        }
        try await undo(client, username.lowercased())
        Output.line("You \(verb.undone) \(username): \(done)")
    }
}

/// `makestagram requests`: who asked to follow your private account.
struct Requests: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List who asked to follow your private account (answer with approve or decline).")

    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await ClientContext.run(options) { context in
            let waiting = try await context.app.client.followRequests(limit: 100).items
            Output.line(waiting.isEmpty ? "Nobody is waiting for your answer." : "Asked to follow you:")
            for user in waiting { Output.line("  \(user.username) (\(user.displayName))") }
        }
    }
}

/// `makestagram followers [USERNAME]`: who follows you (or someone), most recent first.
struct Followers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List who follows you, most recent first (stop one with remove-follower), or who follows someone.")

    @Argument(help: "Whose followers (yours if left out).") var username: String?
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await ClientContext.run(options) { context in
            let client = context.app.client
            let name: String
            if let username {
                name = (username.hasPrefix("@") ? String(username.dropFirst()) : username).lowercased()
            } else {
                name = try await client.me().username
            }
            var cursor: String?
            var count = 0
            repeat {
                let page = try await client.followers(of: name, cursor: cursor, limit: 100)
                for user in page.items { Output.line("  \(user.username) (\(user.displayName))") }
                count += page.items.count
                cursor = page.nextCursor
            } while cursor != nil && count < 10_000
            if count == 0 { Output.line(username == nil ? "Nobody follows you yet." : "Nobody follows \(name) yet.") }
        }
    }
}

/// `makestagram approve USERNAME`: they follow your private account from now on.
struct Approve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Approve a request to follow you.")

    @Argument(help: "Whose request to approve.") var username: String
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await ClientContext.run(options) { context in
            try await context.app.client.approveFollowRequest(username.lowercased())
            Output.line("\(username) follows you now.")
        }
    }
}

/// `makestagram decline USERNAME`: they are not told, and may ask again.
struct Decline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Decline a request to follow you (they are not told).")

    @Argument(help: "Whose request to decline.") var username: String
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await ClientContext.run(options) { context in
            try await context.app.client.declineFollowRequest(username.lowercased())
            Output.line("You declined \(username)'s request.")
        }
    }
}

/// `makestagram remove-follower USERNAME`: they stop following you, untold, and may ask again.
struct RemoveFollower: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-follower", abstract: "Stop someone following you (they are not told, and may ask again).")

    @Argument(help: "Who stops following you (someone on another server as user@host).") var username: String
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await ClientContext.run(options) { context in
            let name = username.hasPrefix("@") ? String(username.dropFirst()).lowercased() : username.lowercased()
            try await context.app.client.removeFollower(name)
            Output.line("\(name) no longer follows you.")
        }
    }
}

private func setFollow(_ username: String, following: Bool, options: ClientOptions) async throws {
    try await ClientContext.run(options) { context in
        let client = context.app.client
        // Someone on another server: `bob@example.social`, with or without the leading `@`.
        let name = username.hasPrefix("@") ? String(username.dropFirst()).lowercased() : username.lowercased()
        let state = try await following ? client.follow(name) : client.unfollow(name)
        if state.viewerRequested {
            if Limits.isRemoteUsername(name) {
                return Output.line("You asked to follow \(name); it counts once their server accepts.")
            }
            return Output.line("\(username)'s account is private: you asked to follow it, and they'll decide.")
        }
        Output.line(
            "\(following ? "You follow" : "You no longer follow") \(username) (\(state.followerCount) followers).")
    }
}

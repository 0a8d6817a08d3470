import ArgumentParser

/// `makestagram follow USERNAME`: their posts join your feed.
struct Follow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Follow someone: their posts join your feed.")

    @Argument(help: "Whom to follow.") var username: String
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
        try await ClientContext.run(options) { context in
            let client = context.app.client
            guard let username else {
                let muted = try await client.mutedUsers(limit: 100).items
                Output.line(muted.isEmpty ? "You mute nobody." : "You mute:")
                for user in muted { Output.line("  \(user.username) (\(user.displayName))") }
                return
            }
            _ = try await client.unmute(username.lowercased())
            Output.line("You unmuted \(username): their posts and activity are back.")
        }
    }
}

private func setFollow(_ username: String, following: Bool, options: ClientOptions) async throws {
    try await ClientContext.run(options) { context in
        let client = context.app.client
        let state = try await following ? client.follow(username.lowercased()) : client.unfollow(username.lowercased())
        Output.line(
            "\(following ? "You follow" : "You no longer follow") \(username) (\(state.followerCount) followers).")
    }
}

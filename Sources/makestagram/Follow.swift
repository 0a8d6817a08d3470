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

private func setFollow(_ username: String, following: Bool, options: ClientOptions) async throws {
    try await ClientContext.run(options) { context in
        let client = context.app.client
        let state = try await following ? client.follow(username.lowercased()) : client.unfollow(username.lowercased())
        Output.line(
            "\(following ? "You follow" : "You no longer follow") \(username) (\(state.followerCount) followers).")
    }
}

import ArgumentParser

/// `makestagram whoami`: the logged-in user, as the server knows them.
struct Whoami: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show whom you are logged in as, with your counts.")

    @Flag(help: "Print the profile as JSON.") var json = false
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await ClientContext.run(options) { context in
            let me = try await context.app.client.me()
            if json { return try Output.json(me) }
            Output.line("\(me.username) (\(me.displayName)) on \(context.server.absoluteString)")
            Output.line("\(me.postCount) posts · \(me.followerCount) followers · \(me.followingCount) following")
        }
    }
}

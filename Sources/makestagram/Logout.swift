import ArgumentParser

/// `makestagram logout`: ends the session on the server and forgets it here.
struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log out: the session's token stops working at once.")

    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await ClientContext.run(options, requiresLogin: false) { context in
            guard let user = context.app.user.value else {
                Output.line("You were not logged in to \(context.server.absoluteString).")
                return
            }
            try await context.app.logOut()
            Output.line("Logged out \(user.username).")
        }
    }
}

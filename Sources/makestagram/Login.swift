import ArgumentParser

/// `makestagram login USERNAME`: starts a session, remembered for the next commands.
struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Log in; later commands use the session until you log out.",
        discussion: """
            The session is kept in $XDG_CONFIG_HOME/makestagram/credentials.json (or ~/.config/…), readable only \
            by you. The password is asked for without echo, or read from standard input with --password-stdin.
            """)

    @Argument(help: "Your username.") var username: String
    @OptionGroup var password: PasswordInput
    @OptionGroup var options: ClientOptions

    func run() async throws {
        let secret = try password.read()
        try await ClientContext.run(options, requiresLogin: false) { context in
            let user = try await context.app.logIn(username: username.lowercased(), password: secret)
            Output.line("Logged in as \(user.username) on \(context.server.absoluteString).")
        }
    }
}

import ArgumentParser
import MakestagramAPI

/// `makestagram signup USERNAME`: creates an account and logs in to it.
struct Signup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create an account and log in to it.",
        discussion: "The password is asked for without echo, or read from standard input with --password-stdin.")

    @Argument(help: "3–30 lower-case letters, digits, '_' or '.'.") var username: String
    @Option(help: "The name shown beside the username (default: the username).") var name: String?
    @OptionGroup var password: PasswordInput
    @OptionGroup var options: ClientOptions

    func validate() throws {
        guard Limits.isValidUsername(username) else {
            throw ValidationError("'\(username)' is not a username: use 3–30 of a–z, 0–9, '_' and '.'")
        }
    }

    func run() async throws {
        let secret = try password.read(prompt: "Choose a password (8–72 characters): ")
        try await ClientContext.run(options, requiresLogin: false) { context in
            let user = try await context.app.signUp(
                username: username, password: secret, displayName: name ?? username)
            Output.line(
                "Welcome, \(user.displayName)! You are logged in as \(user.username) on \(context.server.absoluteString)."
            )
        }
    }
}

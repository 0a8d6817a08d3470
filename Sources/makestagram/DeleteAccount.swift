import ArgumentParser
import Foundation
import MakestagramAPI

/// `makestagram delete-account`: deletes the logged-in account for good.
struct DeleteAccount: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-account",
        abstract: "Delete your account for good: posts, photos, comments, likes and follows.",
        discussion: """
            Asks for your password (or reads it from standard input with --password-stdin). The account disappears \
            at once and everything in it within moments; its username stays reserved for \
            \(Limits.deletedUsernameReservedDays) days. Run `makestagram export FILE` first to keep a copy.
            """)

    @Flag(help: "Confirm: without it nothing is deleted.") var yes = false
    @OptionGroup var password: PasswordInput
    @OptionGroup var options: ClientOptions

    func run() async throws {
        guard yes else {
            throw ValidationError("this deletes your account for good; run again with --yes to go ahead")
        }
        let secret = try password.read(prompt: "Password: ")
        try await ClientContext.run(options) { context in
            let username = context.app.user.value?.username ?? "your account"
            try await context.app.deleteAccount(password: secret)
            Output.line("Deleted \(username). You are logged out.")
        }
    }
}

import ArgumentParser
import Foundation
import MakestagramAPI

/// `makestagram sessions [--end ID]`: where you are logged in, and logging one out.
struct Sessions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List where you are logged in, or log one of those sessions out.",
        discussion: "* marks this command line's own session. A session logged out stops working at once.")

    @Option(help: "Log out the session with this ID.") var end: String?
    @Flag(help: "Print the sessions as JSON.") var json = false
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await ClientContext.run(options) { context in
            let client = context.app.client
            if let end {
                try await client.endSession(end)
                return Output.line("Logged out session \(end).")
            }
            let sessions = try await client.sessions()
            if json { return try Output.json(sessions) }
            for session in sessions {
                let marker = session.current ? "*" : " "
                let agent = session.userAgent ?? "unknown client"
                let address = session.address ?? "unknown address"
                Output.line(
                    "\(marker) \(session.id)  \(agent)  \(address)  last used \(session.lastUsedAt.formatted())")
            }
        }
    }
}

/// `makestagram password`: changes the password; every other session is logged out.
struct Password: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Change your password; every other session (browsers, apps) is logged out.",
        discussion: """
            Asks for the current password, then the new one twice, without echo. With --password-stdin, reads the \
            current and the new password from two lines of standard input.
            """)

    @OptionGroup var password: PasswordInput
    @OptionGroup var options: ClientOptions

    func run() async throws {
        let current = try password.read(prompt: "Current password: ")
        let new = try password.read(prompt: "New password: ")
        if !password.passwordStdin && isatty(STDIN_FILENO) != 0 {
            guard try password.read(prompt: "New password again: ") == new else {
                throw ValidationError("the new passwords differ; nothing was changed")
            }
        }
        try await ClientContext.run(options) { context in
            let answer = try await context.app.client.changePassword(current: current, new: new)
            Output.line(
                answer.endedSessions == 0
                    ? "Password changed."
                    : "Password changed; \(answer.endedSessions) other session(s) logged out.")
        }
    }
}

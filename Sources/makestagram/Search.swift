import ArgumentParser

/// `makestagram search TEXT`: finds people by part of their username or name; with no text, suggests people.
struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find people by part of their username or name, or see whom to follow.",
        discussion: """
            Case and accents are ignored; one or two characters match the start of usernames. Without a text, lists \
            people you might follow. ✓ marks those you follow.
            """)

    @Argument(help: "Part of a username or display name.") var query: String?
    @Flag(help: "Print the users as JSON.") var json = false
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await ClientContext.run(options) { context in
            let client = context.app.client
            let page =
                if let query { try await client.searchUsers(query) } else { try await client.suggestedUsers() }
            if json { return try Output.json(page.items) }
            if page.items.isEmpty {
                return Output.line(query.map { "No one matches '\($0)'." } ?? "No one to suggest yet.")
            }
            for user in page.items {
                Output.line("\(user.viewerFollows == true ? "✓" : " ") \(user.username)  \(user.displayName)")
            }
        }
    }
}

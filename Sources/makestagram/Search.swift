import ArgumentParser

/// `makestagram search PREFIX`: finds people by the start of their username.
struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Find people whose username starts with a text.")

    @Argument(help: "The start of a username.") var query: String
    @Flag(help: "Print the users as JSON.") var json = false
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await ClientContext.run(options) { context in
            let page = try await context.app.client.searchUsers(query.lowercased())
            if json { return try Output.json(page.items) }
            if page.items.isEmpty { return Output.line("No one's username starts with '\(query)'.") }
            for user in page.items { Output.line("\(user.username)  \(user.displayName)") }
        }
    }
}

import ArgumentParser

/// `makestagram comment POST_ID TEXT`.
struct CommentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "comment", abstract: "Comment on a post.")

    @Argument(help: "The post's ID.") var postID: Int64
    @Argument(help: "What to say (1–2,200 characters; quote it).") var text: String
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await ClientContext.run(options) { context in
            let comment = try await context.app.client.comment(on: postID, text: text)
            Output.line("Commented on post \(postID) (comment \(comment.id)).")
        }
    }
}

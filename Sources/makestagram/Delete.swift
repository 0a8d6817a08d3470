import ArgumentParser

/// `makestagram delete POST_ID`: deletes one of your posts, with its likes, comments and photo.
struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete one of your posts, or with --comment one of your comments.")

    @Argument(help: "The post's ID (or the comment's, with --comment).") var id: Int64
    @Flag(help: "Delete a comment instead of a post.") var comment = false
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await ClientContext.run(options) { context in
            if comment {
                try await context.app.client.deleteComment(id)
                Output.line("Deleted comment \(id).")
            } else {
                try await context.app.client.deletePost(id)
                Output.line("Deleted post \(id).")
            }
        }
    }
}

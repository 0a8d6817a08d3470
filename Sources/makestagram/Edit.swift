import ArgumentParser

/// `makestagram edit POST_ID --caption TEXT`: replaces the caption of one of your posts.
struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Edit the caption of one of your posts.",
        discussion: "Everyone watching the post sees the new caption at once, marked as edited.")

    @Argument(help: "The post's ID.") var id: Int64
    @Option(help: "The new caption; an empty one removes it.") var caption: String
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await ClientContext.run(options) { context in
            let post = try await context.app.client.editCaption(of: id, to: caption)
            Output.line(
                post.caption.isEmpty
                    ? "Removed the caption of post \(id)." : "Post \(id) now reads: \"\(post.caption)\"")
        }
    }
}

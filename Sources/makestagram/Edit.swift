import ArgumentParser

/// `makestagram edit POST_ID [--caption TEXT] [--alt-text TEXT] [--hide-likes | --show-likes]`: changes one of your
/// posts.
struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Edit the caption or the photo's alt text of one of your posts, or hide or show its like count.",
        discussion: "Everyone watching the post sees the change at once; an edited caption is marked as edited.")

    /// Whether others see the like count.
    enum LikeCount: EnumerableFlag {
        case hideLikes, showLikes

        static func help(for value: LikeCount) -> ArgumentHelp? {
            value == .hideLikes
                ? "Hide the like count from others (they still see who liked it)." : "Show the like count again."
        }
    }

    @Argument(help: "The post's ID.") var id: Int64
    @Option(help: "The new caption; an empty one removes it.") var caption: String?
    @Option(help: "What the photo shows, for people who cannot see it; an empty one removes it.") var altText: String?
    @Flag var likeCount: LikeCount?
    @OptionGroup var options: ClientOptions

    func validate() throws {
        if caption == nil && altText == nil && likeCount == nil {
            throw ValidationError("Say what to change: --caption TEXT, --alt-text TEXT, --hide-likes or --show-likes.")
        }
    }

    func run() async throws {
        try await ClientContext.run(options) { context in
            let client = context.app.client
            if let caption {
                let post = try await client.editCaption(of: id, to: caption)
                Output.line(
                    post.caption.isEmpty
                        ? "Removed the caption of post \(id)." : "Post \(id) now reads: \"\(post.caption)\"")
            }
            if let altText {
                let post = try await client.editAltText(of: id, to: altText)
                Output.line(
                    post.image.altText.map { "Post \(id)'s photo is described as: \"\($0)\"" }
                        ?? "Removed the alt text of post \(id)'s photo.")
            }
            if let likeCount {
                let post = try await client.setLikeCountHidden(of: id, likeCount == .hideLikes)
                Output.line(
                    post.likeCountHidden
                        ? "Post \(id) hides its like count: only you see \(Watch.likes(post.likeCount))."
                        : "Everyone sees post \(id)'s \(Watch.likes(post.likeCount)) again.")
            }
        }
    }
}

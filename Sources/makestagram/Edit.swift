import ArgumentParser

/// `makestagram edit POST_ID [--caption TEXT] [--alt-text TEXT] [--alt N TEXT]… [--hide-likes | --show-likes]`:
/// changes one of your posts.
struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Edit the caption or a photo's alt text of one of your posts, or hide or show its like count.",
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
    @Option(help: "What the first photo shows, for people who cannot see it; an empty one removes it.")
    var altText: String?
    @Option(
        name: .customLong("alt"), parsing: .upToNextOption,
        help: ArgumentHelp(
            "A photo's number (from 1) and what it shows: --alt 2 \"A red door\"; an empty text removes it.",
            valueName: "n text"))
    var alt: [String] = []
    @Flag var likeCount: LikeCount?
    @OptionGroup var options: ClientOptions

    func validate() throws {
        if caption == nil && altText == nil && alt.isEmpty && likeCount == nil {
            throw ValidationError(
                "Say what to change: --caption TEXT, --alt-text TEXT, --alt N TEXT, --hide-likes or --show-likes.")
        }
        _ = try altTexts()
    }

    /// Each photo's new alt text, by its number from 1: --alt-text for the first, then each --alt N TEXT.
    func altTexts() throws -> [(photo: Int, text: String)] {
        guard alt.count % 2 == 0 else {
            throw ValidationError("--alt takes a photo's number and its text: --alt 2 \"A red door\".")
        }
        var texts: [(photo: Int, text: String)] = altText.map { [(1, $0)] } ?? []
        for pair in stride(from: 0, to: alt.count, by: 2) {
            guard let photo = Int(alt[pair]), photo >= 1 else {
                throw ValidationError("--alt takes a photo's number (from 1) first, not \"\(alt[pair])\".")
            }
            texts.append((photo, alt[pair + 1]))
        }
        return texts
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
            for (photo, text) in try altTexts() {
                let post = try await client.editAltText(of: id, photo: photo, to: text)
                let name = post.photos.count == 1 ? "post \(id)'s photo" : "photo \(photo) of post \(id)"
                let described = post.photos.indices.contains(photo - 1) ? post.photos[photo - 1].altText : nil
                Output.line(
                    described.map { "The \(name) is described as: \"\($0)\"" } ?? "Removed the alt text of \(name).")
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

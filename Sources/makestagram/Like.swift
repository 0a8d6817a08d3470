import ArgumentParser
import MakestagramKit

/// `makestagram like POST_ID` and `unlike POST_ID`: through the SDK's post model, as an app's heart button does.
struct Like: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Like a post.")

    @Argument(help: "The post's ID (see `makestagram feed`).") var postID: Int64
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await setLike(postID, liked: true, options: options)
    }
}

struct Unlike: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Take back your like of a post.")

    @Argument(help: "The post's ID.") var postID: Int64
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await setLike(postID, liked: false, options: options)
    }
}

private func setLike(_ id: Int64, liked: Bool, options: ClientOptions) async throws {
    try await ClientContext.run(options) { context in
        let post = context.app.posts.model(for: try await context.app.client.post(id))
        try await liked ? post.like() : post.unlike()
        let line = post.likedBy.value.isEmpty ? "no likes" : post.likedBy.value
        Output.line("\(liked ? "♥ Liked" : "♡ Unliked") post \(id) by \(post.author.username) — \(line).")
    }
}

import ArgumentParser
import Foundation

/// `makestagram profile [--name …] [--bio …] [--avatar FILE | --remove-avatar]`: shows or edits your profile.
struct Profile: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show your profile, or change your name, bio, avatar or privacy.",
        discussion: "Your new name and avatar show on your posts and comments everywhere, at once.")

    @Option(help: "Your display name (1–50 characters).") var name: String?
    @Option(help: "A few lines about you (at most 150 characters; empty removes it).") var bio: String?
    @Option(help: "A photo to crop square as your avatar (JPEG, PNG, WebP or HEIC).", completion: .file())
    var avatar: String?
    @Flag(help: "Remove your avatar (your initials show).") var removeAvatar = false
    @Flag(
        inversion: .prefixedEnableDisable,
        help: "Hide the like count of your new posts from others (--disable-hide-like-counts shows it).")
    var hideLikeCounts: Bool?
    @Flag(
        name: .customLong("private"), inversion: .prefixedNo,
        help: ArgumentHelp(
            "Make your account private: only followers you approve see your photos (--no-private makes it public "
                + "and accepts everyone who asked).",
            valueName: "private"))
    var isPrivate: Bool?
    @Flag(help: "Print the profile as JSON.") var json = false
    @OptionGroup var options: ClientOptions

    func validate() throws {
        if avatar != nil && removeAvatar { throw ValidationError("Use --avatar or --remove-avatar, not both.") }
    }

    func run() async throws {
        let photo = try avatar.map { path in
            do {
                return (
                    data: try Data(contentsOf: URL(fileURLWithPath: path)), name: (path as NSString).lastPathComponent
                )
            } catch {
                throw ValidationError("Cannot read \(path): \(error.localizedDescription)")
            }
        }
        try await ClientContext.run(options) { context in
            let client = context.app.client
            var profile = try await client.me()
            if name != nil || bio != nil || hideLikeCounts != nil || isPrivate != nil {
                profile = try await client.updateProfile(
                    displayName: name, bio: bio, hideLikeCounts: hideLikeCounts, isPrivate: isPrivate)
            }
            if let photo { profile = try await client.setAvatar(image: photo.data, fileName: photo.name) }
            if removeAvatar { profile = try await client.removeAvatar() }
            if json { return try Output.json(profile) }
            Output.line("\(profile.displayName) (@\(profile.username))")
            if !profile.bio.isEmpty { Output.line(profile.bio) }
            Output.line(
                profile.avatarURL.map { "Avatar: \(context.server.absoluteString.trimmingSuffix("/"))\($0)" }
                    ?? "No avatar (your initials show)")
            if profile.hideLikeCounts == true { Output.line("New posts hide their like count from others.") }
            if profile.isPrivate {
                Output.line("Private: only followers you approve see your photos (makestagram requests).")
            }
        }
    }
}

import ArgumentParser
import Foundation
import MakestagramAPI
import MakestagramKit
import Synchronization

/// `makestagram post IMAGE… --caption … --alt … --alt …`: shares a photo, or several as one post, with a progress
/// bar.
struct PostPhoto: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "post", abstract: "Share a photo, or several as one post (JPEG, PNG, WebP or HEIC).",
        discussion: """
            Photos are shown in the order given (up to 10, unless the server allows another number). Their location \
            and other metadata are removed by the server before anyone sees them. Give each photo its alt text with \
            one --alt each, in the same order: `makestagram post a.jpg b.heic --alt "A red door" --alt "The sea"`.
            """)

    @Argument(help: "The photo files, in the order the post shows them.", completion: .file()) var images: [String]
    @Option(help: "The caption (up to 2,200 characters).") var caption = ""
    @Option(
        name: [.customLong("alt"), .customLong("alt-text")],
        help: "What a photo shows, for people who cannot see it (up to 1,500 characters); once per photo, in order.")
    var altTexts: [String] = []
    @Option(help: "Cut the photo around its centre: original (whole), square, portrait (4:5) or landscape (1.91:1).")
    var crop: PhotoCrop = .original
    @Flag(help: "Print the new post as JSON.") var json = false
    @OptionGroup var options: ClientOptions

    func validate() throws {
        guard !images.isEmpty else { throw ValidationError("Name the photo file, or several.") }
        guard altTexts.count <= images.count else {
            throw ValidationError(
                "\(altTexts.count) alt texts for \(images.count) photo\(images.count == 1 ? "" : "s"): give at most one "
                    + "--alt per photo, in the order of the photos.")
        }
    }

    func run() async throws {
        var photos: [PhotoToShare] = []
        for (index, image) in images.enumerated() {
            guard let data = FileManager.default.contents(atPath: image) else {
                Output.error("cannot read \(image): there is no such file, or it is not readable.")
                throw ExitCode.failure
            }
            photos.append(
                PhotoToShare(
                    data: data, fileName: URL(fileURLWithPath: image).lastPathComponent,
                    altText: index < altTexts.count ? altTexts[index] : nil))
        }
        let sizes = photos.map(\.data.count)
        try await ClientContext.run(options) { context in
            let bar = ProgressBar(total: sizes.reduce(0, +))
            let post: PostModel
            do {
                post = try await context.app.share(
                    photos: photos, caption: caption, crop: crop,
                    progress: { index, fraction in
                        let before = sizes[..<index].reduce(0, +)
                        bar.update((Double(before) + fraction * Double(sizes[index])) / Double(max(1, bar.total)))
                    })
                bar.finish()
            } catch {
                bar.end()
                throw error
            }
            if json { return try Output.json(post.post) }
            let url = context.server.absoluteString.trimmingSuffix("/") + post.image.full.url
            let count = post.photos.value.count
            Output.line(
                count == 1
                    ? "Posted post \(post.id) (\(post.image.full.width)×\(post.image.full.height)): \(url)"
                    : "Posted post \(post.id) with \(count) photos: \(url)")
        }
    }
}

/// A one-line upload progress bar on standard error: `[██████░░░░]  60%  1.2 of 2.0 MB`.
final class ProgressBar: Sendable {
    let total: Int
    private let shown = Mutex(-1)

    init(total: Int) {
        self.total = total
    }

    func update(_ fraction: Double) {
        let percent = Int((fraction * 100).rounded(.down))
        let changed = shown.withLock { shown in
            defer { shown = percent }
            return percent != shown
        }
        guard changed else { return }
        let width = 30
        let filled = width * percent / 100
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let sent = Double(total) * fraction / 1_048_576
        let line = String(format: "\r[%@] %3d%%  %.1f of %.1f MB", bar, percent, sent, Double(total) / 1_048_576)
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// The upload is done.
    func finish() {
        update(1)
        end()
    }

    /// Leaves the bar's line, so that what follows starts on its own.
    func end() {
        FileHandle.standardError.write(Data("\n".utf8))
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}

extension PhotoCrop: ExpressibleByArgument {}

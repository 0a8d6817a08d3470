import ArgumentParser
import Foundation
import MakestagramAPI
import MakestagramKit
import Synchronization

/// `makestagram post IMAGE --caption …`: shares a photo, with a progress bar.
struct PostPhoto: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "post", abstract: "Share a photo (JPEG, PNG, WebP or HEIC).",
        discussion: "Its location and other metadata are removed by the server before anyone sees it.")

    @Argument(help: "The photo file.", completion: .file()) var image: String
    @Option(help: "The caption (up to 2,200 characters).") var caption = ""
    @Option(help: "What the photo shows, for people who cannot see it (up to 1,500 characters).") var altText: String?
    @Option(help: "Cut the photo around its centre: original (whole), square, portrait (4:5) or landscape (1.91:1).")
    var crop: PhotoCrop = .original
    @Flag(help: "Print the new post as JSON.") var json = false
    @OptionGroup var options: ClientOptions

    func run() async throws {
        guard let data = FileManager.default.contents(atPath: image) else {
            Output.error("cannot read \(image): there is no such file, or it is not readable.")
            throw ExitCode.failure
        }
        try await ClientContext.run(options) { context in
            let bar = ProgressBar(total: data.count)
            let post: PostModel
            do {
                post = try await context.app.share(
                    image: data, fileName: URL(fileURLWithPath: image).lastPathComponent, caption: caption,
                    crop: crop, altText: altText, progress: { bar.update($0) })
                bar.finish()
            } catch {
                bar.end()
                throw error
            }
            if json { return try Output.json(post.post) }
            let url = context.server.absoluteString.trimmingSuffix("/") + post.image.full.url
            Output.line("Posted post \(post.id) (\(post.image.full.width)×\(post.image.full.height)): \(url)")
        }
    }
}

/// A one-line upload progress bar on standard error: `[██████░░░░]  60%  1.2 of 2.0 MB`.
final class ProgressBar: Sendable {
    private let total: Int
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

import ArgumentParser
import Foundation

/// `makestagram export FILE`: downloads a ZIP of everything you put in.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Download your data: profile, posts with their photos, comments and follows, as a ZIP.",
        discussion: "A few exports an hour are allowed.")

    @Argument(help: "Where to write the ZIP (an existing file is not replaced).", completion: .file())
    var file: String
    @OptionGroup var options: ClientOptions

    func run() async throws {
        guard !FileManager.default.fileExists(atPath: file) else {
            Output.error("\(file) exists already; name a new file.")
            throw ExitCode.failure
        }
        try await ClientContext.run(options) { context in
            let data = try await context.app.client.exportData()
            try data.write(to: URL(fileURLWithPath: file), options: .withoutOverwriting)
            Output.line(
                "Wrote your data to \(file) (\(ByteCountFormatter.string(fromByteCount: Int64(data.count), countStyle: .file)))."
            )
        }
    }
}

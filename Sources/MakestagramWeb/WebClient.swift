import Foundation
import MakestagramAPI

/// The web client: the whole app as HTML, CSS and JavaScript modules with no build step, shipped as this module's
/// resources (`web/`) and served by the server at `/`. The values the client shares with the server (problem and
/// close codes, field limits, the upload limit, the photo formats the server reads) are not copied into its scripts:
/// ``constantsModule(maxUploadBytes:maxPhotosPerPost:heifBrands:)`` writes them, from the server's own definitions, into the
/// `constants.js` module the scripts import.
public enum WebClient {
    /// Why the client's files could not be read.
    public enum LoadError: Error, CustomStringConvertible {
        /// The resource folder is not beside the executable.
        case missing

        public var description: String {
            "the web client's files are missing; run the server from its build folder "
                + "(makestagram_MakestagramWeb.resources beside the executable)"
        }
    }

    /// Every file of the client by name (`index.html`, `main.js`, …), `constants.js` included; `heifBrands` are the
    /// HEIF brands the server reads as photos (Photos' `ImageFormat`), so that the composer recognises a photo by
    /// its first bytes as the server will.
    public static func files(
        maxUploadBytes: Int, maxPhotosPerPost: Int = Post.photoLimit, heifBrands: [String] = []
    ) throws -> [String: Data] {
        guard let folder = Bundle.module.url(forResource: "web", withExtension: nil) else { throw LoadError.missing }
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !name.hasPrefix(".") {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        guard files["index.html"] != nil else { throw LoadError.missing }
        files["constants.js"] = Data(
            constantsModule(maxUploadBytes: maxUploadBytes, maxPhotosPerPost: maxPhotosPerPost, heifBrands: heifBrands)
                .utf8)
        return files
    }

    /// The `constants.js` module: what the scripts must agree on with the server, from the server's own values.
    public static func constantsModule(
        maxUploadBytes: Int, maxPhotosPerPost: Int = Post.photoLimit, heifBrands: [String] = []
    ) -> String {
        func object(_ pairs: [(String, String)]) -> String {
            "{ " + pairs.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + " }"
        }
        func camelCase(_ code: String) -> String {
            let words = code.split(separator: "_")
            return words.first.map(String.init)!
                + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }
                .joined()
        }
        func range(_ range: ClosedRange<Int>) -> String { "[\(range.lowerBound), \(range.upperBound)]" }
        let problems = ProblemCode.allCases.map { (camelCase($0.rawValue), "\"\($0.rawValue)\"") }
        let liveErrors = LiveErrorCode.allCases.map { (camelCase($0.rawValue), "\"\($0.rawValue)\"") }
        let closeCodes = [
            ("resync", LiveCloseCode.resync), ("sessionEnded", LiveCloseCode.sessionEnded),
            ("unauthorized", LiveCloseCode.unauthorized), ("tryAgainLater", LiveCloseCode.tryAgainLater),
            ("accountClosed", LiveCloseCode.accountClosed),
        ].map { ($0.0, String($0.1)) }
        let limits: [(String, String)] = [
            ("usernameLength", range(Limits.usernameLength)), ("passwordBytes", range(Limits.passwordBytes)),
            ("displayNameLength", range(Limits.displayNameLength)), ("captionLength", range(Limits.captionLength)),
            ("altTextLength", range(Limits.altTextLength)),
            ("commentLength", range(Limits.commentLength)), ("reportReasonLength", range(Limits.reportReasonLength)),
            ("bioLength", range(Limits.bioLength)),
            ("moderationReasonLength", range(Limits.moderationReasonLength)),
            ("deletedUsernameReservedDays", String(Limits.deletedUsernameReservedDays)),
            ("maxUploadBytes", String(maxUploadBytes)), ("maxPhotosPerPost", String(maxPhotosPerPost)),
            ("likersPreview", String(Post.likersPreviewLimit)),
            ("maxSubscriptions", String(LiveProtocol.maxSubscriptions)),
            ("heifBrands", "[" + heifBrands.sorted().map { "\"\($0)\"" }.joined(separator: ", ") + "]"),
        ]
        return """
            // Written by the server from its own definitions (MakestagramAPI) when it starts: the one source of the
            // values the client and the server must agree on. Not a file in the repository.

            /** Problem codes (RFC 9457 `code`), as ProblemCode in MakestagramAPI. */
            export const problem = Object.freeze(\(object(problems)));

            /** Error codes on the event stream, as LiveErrorCode. */
            export const liveError = Object.freeze(\(object(liveErrors)));

            /** Event-stream close codes, as LiveCloseCode. */
            export const closeCode = Object.freeze(\(object(closeCodes)));

            /** Field limits (inclusive [lowest, highest]) and sizes, as Limits, Post and LiveProtocol. */
            export const limits = Object.freeze(\(object(limits)));

            """
    }
}

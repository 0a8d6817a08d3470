import ArgumentParser
import Foundation
import MakestagramAPI
import MakestagramKit

/// What a client command works with: the SDK for the chosen server, with the session remembered in the user's
/// config folder, and the way errors are told (each with what to do next).
@MainActor
struct ClientContext {
    let server: URL
    let app: Makestagram

    /// Runs a client command's body on the main actor (where the SDK's models live), turning SDK errors into
    /// messages a person can act on.
    static func run(
        _ options: ClientOptions, requiresLogin: Bool = true, _ body: @MainActor (ClientContext) async throws -> Void
    ) async throws {
        let server = try options.serverURL()
        let context = ClientContext(server: server, app: Makestagram(server: server, cacheDirectory: nil))
        do {
            if requiresLogin && !context.app.isLoggedIn { throw MakestagramError.notLoggedIn }
            try await body(context)
        } catch let error as MakestagramError {
            if error.status == 401 && error.code == "unauthorized" { try? await context.app.logOut() }
            Output.error(context.explain(error))
            throw ExitCode.failure
        }
    }

    /// An error and what to do about it.
    func explain(_ error: MakestagramError) -> String {
        switch error {
        case .notLoggedIn:
            return "You are not logged in to \(server.absoluteString). Run `makestagram login USERNAME` "
                + "(or `makestagram signup USERNAME` to create an account)."
        case .offline(let reason):
            return "Could not reach \(server.absoluteString) (\(reason)). Is the server running? Start one with "
                + "`makestagram serve`, or choose another with --server or MAKESTAGRAM_SERVER."
        case .server(let problem):
            let hint: String? =
                switch problem.kind {
                case .unauthorized: "Your session has ended. Run `makestagram login USERNAME` again."
                case .usernameTaken: "Choose another username."
                case .invalidCredentials: "Check the username and password and try again."
                case .payloadTooLarge: "Post a smaller photo."
                case .notFound: "Check the ID or username (`makestagram feed` lists post IDs)."
                case .forbidden: "Only the author can do that."
                case .rateLimited, .tooManyAttempts, .serverBusy: "Wait a moment and try again."
                default: nil
                }
            return [problem.detail, hint].compactMap { $0 }.joined(separator: " ")
        case .invalidResponse(let reason):
            return
                "The server's answer could not be read (\(reason)). Is \(server.absoluteString) a Makestagram server?"
        case .cancelled:
            return "Cancelled."
        }
    }
}

/// Writes to the terminal without buffering, so that lines reach a pipe as they are written.
enum Output {
    static func line(_ text: String = "") {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data("error: \(text)\n".utf8))
    }

    static func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Pretty JSON for scripts, in the API's conventions.
    static func json(_ value: some Encodable) throws {
        let encoder = JSONCoding.encoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        line(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}

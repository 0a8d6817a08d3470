import ArgumentParser
import Foundation

/// The options every client command takes: which server to talk to.
struct ClientOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The server's address (MAKESTAGRAM_SERVER; default http://127.0.0.1:8080).", valueName: "url"))
    var server: String?

    /// The server URL from the option, the environment or the default.
    func serverURL() throws -> URL {
        let text = server ?? ProcessInfo.processInfo.environment["MAKESTAGRAM_SERVER"] ?? "http://127.0.0.1:8080"
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme),
            url.host != nil
        else {
            throw ValidationError("'\(text)' is not a server address; give one like http://127.0.0.1:8080")
        }
        return url
    }
}

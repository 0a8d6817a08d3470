import ArgumentParser
import Configuration
import Foundation
import MakestagramServer
import MakestagramStore

/// `makestagram admin`: the operator's commands, run on the server's machine against its database.
struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run on the server's machine: make or unmake moderators.",
        discussion: """
            These commands work on the server's database directly (the SQLite file in --data, or the PostgreSQL \
            database in --database), with the same settings and environment variables as `serve`; the servers may \
            be running.
            """,
        subcommands: [Grant.self, Revoke.self])

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a user a moderator: they see the reports queue and can remove posts and suspend users.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The user's username.") var username: String

        func run() async throws {
            try await database.setModerator(username, moderator: true)
            Output.line("\(username) is a moderator.")
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop a user being a moderator.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The user's username.") var username: String

        func run() async throws {
            try await database.setModerator(username, moderator: false)
            Output.line("\(username) is no longer a moderator.")
        }
    }

    /// Where the server keeps its data, as `serve` is told.
    struct DatabaseOptions: ParsableArguments {
        @Option(
            name: .customLong("data"),
            help: "The server's data folder (MAKESTAGRAM_DATA). (default: makestagram-data)")
        var dataDirectory: String?

        @Option(help: ArgumentHelp("The server's PostgreSQL database (MAKESTAGRAM_DATABASE).", valueName: "url"))
        var database: String?

        @Option(name: .customLong("config"), help: "A JSON configuration file, as for `serve` (MAKESTAGRAM_CONFIG).")
        var configFile: String?

        func setModerator(_ username: String, moderator: Bool) async throws {
            var flags: [ServerConfiguration.Key: ConfigContent] = [:]
            if let dataDirectory { flags[.data] = .string(dataDirectory) }
            if let database { flags[.database] = .string(database) }
            let configuration: ServerConfiguration
            do {
                configuration = try await ServerConfiguration.load(
                    flags: flags, file: configFile ?? ProcessInfo.processInfo.environment["MAKESTAGRAM_CONFIG"])
            } catch let error as ConfigurationError {
                throw ValidationError(error.description)
            }
            do {
                try await Administration.setModerator(username, moderator: moderator, configuration: configuration)
            } catch StoreError.notFound(let what) {
                throw ValidationError(
                    what == "user" ? "There is no user named \(username)." : "There is no \(what).")
            }
        }
    }
}

import ArgumentParser

/// The `makestagram` command: the server, and (later) the client commands.
@main
struct Makestagram: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "makestagram",
        abstract: "Makestagram: a self-hostable photo-sharing service.",
        subcommands: [Serve.self],
        defaultSubcommand: nil)
}

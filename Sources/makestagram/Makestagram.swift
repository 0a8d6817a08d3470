import ArgumentParser
import Dispatch
import Foundation
import NIOCore
import NIOPosix

/// The `makestagram` command: the server, and (later) the client commands.
struct Makestagram: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "makestagram",
        abstract: "Makestagram: a self-hostable photo-sharing service.",
        subcommands: [Serve.self])
}

/// Runs Swift concurrency on NIO's event loops, so a request's tasks stay on the thread that read it instead of
/// hopping to another pool. That must happen before any task starts, hence this synchronous entry point; the main
/// thread then serves the main actor, where argument parsing runs, and the commands' work runs on the event loops.
@main
enum Main {
    static func main() {
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        Task { @MainActor in
            await Makestagram.main()
            exit(0)
        }
        dispatchMain()
    }
}

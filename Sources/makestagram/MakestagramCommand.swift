// makestagram: the command line — `serve` (thin: its settings go to MakestagramServer through
// swift-configuration) and the client commands, one file each, on MakestagramKit.

import ArgumentParser
import Dispatch
import Foundation
import NIOCore
import NIOPosix

/// The `makestagram` command: the server, and the client commands built on the SDK.
struct MakestagramCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "makestagram",
        abstract: "Makestagram: a self-hostable photo-sharing service.",
        discussion: "Client commands talk to --server or $MAKESTAGRAM_SERVER (default http://127.0.0.1:8080).",
        groupedSubcommands: [
            CommandGroup(name: "Server", subcommands: [Serve.self, Admin.self]),
            CommandGroup(
                name: "Account",
                subcommands: [
                    Signup.self, Login.self, Logout.self, Whoami.self, Profile.self, Password.self, Sessions.self,
                    Export.self, DeleteAccount.self,
                ]),
            CommandGroup(
                name: "Photos",
                subcommands: [
                    PostPhoto.self, Feed.self, Like.self, Unlike.self, CommentCommand.self, Edit.self, Delete.self,
                    Watch.self,
                ]),
            CommandGroup(name: "People", subcommands: [Follow.self, Unfollow.self, Search.self, ActivityCommand.self]),
            CommandGroup(name: "Moderation", subcommands: [Moderate.self]),
        ])
}

/// Runs Swift concurrency on NIO's event loops, so a request's tasks stay on the thread that read it instead of
/// hopping to another pool. That must happen before any task starts, hence this synchronous entry point; the main
/// thread then serves the main actor, where argument parsing runs, and the commands' work runs on the event loops.
@main
enum Main {
    static func main() {
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        Task { @MainActor in
            await MakestagramCommand.main()
            exit(0)
        }
        dispatchMain()
    }
}

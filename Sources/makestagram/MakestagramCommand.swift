// makestagram: the command line — `serve` (thin: its settings go to MakestagramServer through
// swift-configuration) and the client commands, one file each, on MakestagramKit.

import ArgumentParser
import Foundation

/// The `makestagram` command: the server, and the client commands built on the SDK.
///
/// Swift concurrency runs on its default executor. NIO's event loops are not made the global executor
/// (`NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor`): NIO 2.101 runs every
/// job with the event loop as its serial executor, so each call into a nonisolated async function (about 45 per
/// request through Hummingbird's responders and middleware) re-queued the task on the loop; with the default
/// executor those calls run inline (Benchmarks/HISTORY.md, 2026-11-25).
@main
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
            CommandGroup(
                name: "People",
                subcommands: [
                    Follow.self, Unfollow.self, Followers.self, Requests.self, Approve.self, Decline.self,
                    RemoveFollower.self, Mute.self, Unmute.self,
                    Block.self, Unblock.self, BlockServer.self, UnblockServer.self, Search.self, ActivityCommand.self,
                ]),
            CommandGroup(name: "Moderation", subcommands: [Moderate.self]),
        ])
}

import Foundation
import MakestagramAPI

/// Moderation: moderators, the report queue, removals, suspensions and their log. Part of ``Store``; both stores implement it.
public protocol ModerationStoring: Sendable {
    /// Makes the user a moderator or not, written to the moderation log as done by `by` (nil: the server's
    /// operator). Throws `notFound` for an unknown or deleted username.
    func setModerator(username: String, moderator: Bool, by: Int64?) async throws
    /// Whether the user is an active moderator.
    func isModerator(userID: Int64) async throws -> Bool
    /// Posts with reports not yet handled, the oldest waiting report first, as `viewer` (a moderator) sees them.
    /// Posts of suspended users are not there (their reports were handled by the suspension).
    func reportQueue(viewer: Int64, page: PageRequest) async throws -> PageResult<ReportedPost>
    /// Marks the post's waiting reports as handled, leaving the post; logged. Throws `notFound` when the post has
    /// no waiting reports (or does not exist).
    func dismissReports(postID: Int64, moderator: Int64, reason: String) async throws
    /// Deletes anyone's post as ``PostStoring/deletePost(id:viewer:)`` does; logged. Answers the media files to remove.
    func removePost(postID: Int64, moderator: Int64, reason: String) async throws -> [String]
    /// Suspends a user (their sessions end, everything of theirs is hidden, the reports of their posts are handled)
    /// or lifts their suspension; logged, and published as ``StoreEvent/userRemoved(user:username:status:)`` or
    /// ``StoreEvent/userRestored(user:username:)``. Throws `notFound` for an unknown or deleted username, `forbidden` for
    /// suspending oneself or another moderator; a change that changes nothing is not logged.
    func setSuspended(username: String, suspended: Bool, moderator: Int64, reason: String) async throws
    /// Blocks another server and its subdomains for everyone here (`severity`), or lifts its block (nil); logged with
    /// the domain, and published as ``StoreEvent/domainBlockChanged(domain:severity:)``. False, and nothing logged,
    /// when it changes nothing. What the server's people made here is the caller's to remove.
    func setDomainBlock(domain: String, severity: DomainBlockSeverity?, moderator: Int64, reason: String) async throws
        -> Bool
    /// The servers the moderators block, most recently blocked first.
    func domainBlocks() async throws -> [DomainBlock]
    /// The strongest moderators' block covering `host`, from memory (``BlockedDomains``).
    func domainSeverity(ofHost host: String) -> DomainBlockSeverity?
    /// The moderation log, newest first.
    func moderationLog(page: PageRequest) async throws -> PageResult<ModerationEntry>

    /// Whether anyone is hidden from everyone (suspended, or being deleted), and a number that grows whenever who
    /// is may have changed: routes that serve what only names a user (media files) check it on every request.
    var hiddenUsers: HiddenUsersSummary { get }
    /// The media files of the users hidden from everyone (their posts' photos, uploads and avatars), for the media
    /// routes to refuse.
    func hiddenUsersMedia() async throws -> Set<String>
}

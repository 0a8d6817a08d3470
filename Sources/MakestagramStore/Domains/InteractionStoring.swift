import Foundation
import MakestagramAPI

/// What people do to a post: likes, comments and reports. Part of ``Store``; both stores implement it.
public protocol InteractionStoring: Sendable {
    /// Makes `viewer` like or unlike a post; idempotent. Throws `notFound` for an unknown post.
    func setLike(postID: Int64, viewer: Int64, liked: Bool) async throws -> LikeState
    /// The users who liked a post, most recent first, but those `viewer` blocks or is blocked by; nil when there is
    /// no such post, or it is not for `viewer` to see (its author blocks them or they block its author).
    func likers(postID: Int64, viewer: Int64, page: PageRequest) async throws -> PageResult<UserSummary>?
    /// Adds a comment. Throws `notFound` for an unknown post.
    func addComment(postID: Int64, author: Int64, text: String) async throws -> Comment
    /// A post's comments, oldest first, but those of people `viewer` blocks or is blocked by; nil when there is no
    /// such post or it is not for `viewer` to see.
    func comments(postID: Int64, viewer: Int64, page: PageRequest) async throws -> PageResult<Comment>?
    /// Comment `id` as `viewer` reads it (0: anybody); nil when there is no such comment, or its post or writer is not
    /// for `viewer` to see.
    func comment(id: Int64, viewer: Int64) async throws -> Comment?
    /// The post comment `id` is on; nil for no such comment. (Whether anyone may see it is for the reader of the
    /// post to ask.)
    func postOfComment(_ id: Int64) async throws -> Int64?
    /// Deletes a comment if `viewer` wrote it or wrote the post. Throws `notFound` or `forbidden`.
    func deleteComment(id: Int64, viewer: Int64) async throws
    /// Flags a post. Throws `notFound`, `cannotReportOwnPost` or `alreadyReported`.
    /// With `forward`, publishes ``StoreEvent/reportForwarded(postID:reason:)`` in the same transaction.
    func report(postID: Int64, reporter: Int64, reason: String, forward: Bool) async throws
    /// How many times a post has been reported (for moderators), or nil when there is no such post.
    func reportCount(postID: Int64) async throws -> Int?
}

extension InteractionStoring {
    /// Flags a post for the moderators here only (``report(postID:reporter:reason:forward:)``).
    public func report(postID: Int64, reporter: Int64, reason: String) async throws {
        try await report(postID: postID, reporter: reporter, reason: reason, forward: false)
    }
}

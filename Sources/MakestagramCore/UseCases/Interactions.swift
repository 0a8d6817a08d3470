import Foundation
import MakestagramAPI
import MakestagramStore

/// What people do to posts: like, comment, delete a comment, report.
package struct Interactions<S: Store>: Sendable {
    let core: Core<S>
    /// The part of the store this use case writes and reads.
    var store: some InteractionStoring { core.store }

    /// Likes or unlikes a post; answers its like state right after.
    package func like(postID: Int64, by user: Int64, liked: Bool) async throws -> LikeState {
        try core.protection.take(.likes, user: user)
        return try await store.setLike(postID: postID, viewer: user, liked: liked)
    }

    /// Comments on a post.
    package func comment(on postID: Int64, by user: Int64, text raw: String, field: String = "text") async throws
        -> Comment
    {
        let text = try await accepted(comment: raw, field: field, by: user)
        return try await store.addComment(postID: postID, author: user, text: text)
    }

    /// A comment's text once it is acceptable, the person's `comments` limit taken and the people it names met.
    func accepted(comment raw: String, field: String, by user: Int64) async throws -> String {
        let text = try TextInput.multiline(raw, field: field, length: Limits.commentLength)
        try core.protection.take(.comments, user: user)
        await core.meetMentioned(in: text, by: user)
        return text
    }

    /// Comments, as remote person `user`, with their reply `note` (a Note's id): as
    /// ``comment(on:by:text:field:)`` does, and remembered as that Note in the same step. Nil, with nothing changed,
    /// when that Note was taken already.
    package func comment(on postID: Int64, by user: Int64, text raw: String, note: String) async throws -> Comment? {
        let text = try await accepted(comment: raw, field: "content", by: user)
        return try await core.store.addRemoteComment(postID: postID, author: user, text: text, note: note)
    }

    /// Deletes a comment the user wrote, or one on their post.
    package func deleteComment(_ id: Int64, by user: Int64) async throws {
        do {
            try await store.deleteComment(id: id, viewer: user)
        } catch StoreError.forbidden {
            throw UseCaseError.forbidden("Only the comment's author or the post's author can delete it.")
        }
    }

    /// Reports a post to the moderators; with `forward`, a post from another server is reported to its server too
    /// (as this server, never naming the reporter). A report from someone elsewhere is never forwarded again.
    package func report(postID: Int64, by user: Int64, reason raw: String, forward: Bool = false) async throws {
        let reason = try TextInput.multiline(raw, field: "reason", length: Limits.reportReasonLength)
        try core.protection.take(.reports, user: user)
        var forwarded = false
        if forward, try await core.store.remotePostURI(of: postID) != nil {
            forwarded = try await core.store.remoteActor(user: user) == nil
        }
        try await store.report(postID: postID, reporter: user, reason: reason, forward: forwarded)
    }
}

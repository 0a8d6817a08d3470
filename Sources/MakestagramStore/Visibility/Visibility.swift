/// Who may see whom: the one rule every read and write of both stores applies, in SQL and in memory.
///
/// A user sees another's account, posts, likes and comments, and may follow, like, comment on, mention or report
/// them, when the other's account is active (not suspended, not being deleted: ``HiddenUsers``) and neither blocks
/// the other; a private account's posts (and their likes and comments) are seen only by its owner and the followers
/// it accepted. What is not to be seen answers as if it did not exist (404), so that a blocked person learns nothing
/// from the answer they get; the one who blocks sees the profile of the person they block, to unblock them, and
/// anyone sees a private account's profile, to ask to follow it.
package enum Visibility {
    /// An SQL condition (the same text in SQLite and PostgreSQL) true when neither of the users the expressions
    /// `viewer` and `user` name blocks the other: two lookups of the blocks' unique index, one each way.
    package static func unblocked(viewer: String, user: String) -> String {
        """
        NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = \(viewer) AND blocked_id = \(user)) \
        AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = \(user) AND blocked_id = \(viewer))
        """
    }

    /// An SQL condition true when the user `viewer` names may read the posts of the author row aliased `author` (a
    /// `users` row, with its `id` and `is_private`): neither blocks the other, and the account is public, or theirs,
    /// or one they follow (a follow of a private account exists only once accepted).
    package static func readable(viewer: String, author: String) -> String {
        """
        \(unblocked(viewer: viewer, user: "\(author).id")) AND (NOT \(author).is_private OR \(author).id = \(viewer) \
        OR EXISTS (SELECT 1 FROM follows WHERE follower_id = \(viewer) AND followee_id = \(author).id))
        """
    }

    /// The names `viewer` may not see in likers previews and comments: every hidden user's, and their block
    /// partners'.
    package static func hiddenNames(global: Set<String>, partners: BlockPartnerSet) -> Set<String> {
        // Usually one side is empty (nobody suspended, or no partners): no set is built.
        if partners.isEmpty { return global }
        return global.isEmpty ? partners.names : partners.names.union(global)
    }
}

/// Which way a block stands between a viewer and another user.
package enum BlockDirection: Sendable, Equatable {
    /// The viewer blocks them.
    case blocking
    /// They block the viewer.
    case blockedBy
}

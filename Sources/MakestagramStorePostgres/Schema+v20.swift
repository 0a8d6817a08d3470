import Foundation

extension Schema {
    /// A like no longer writes its post's author (their unread count is derived from the change log after commit), so
    /// `set_likes` holds the authors with `FOR KEY SHARE` instead of `FOR NO KEY UPDATE`: still enough to wait for a
    /// suspension that is being decided (it locks the user `FOR UPDATE`), but no longer in the way of the activity
    /// consumer, which updates the same users' unread counts (`FOR NO KEY UPDATE`): before, likes and the consumer
    /// queued behind each other's transactions. The function is v19's otherwise.
    static let v20 = v19.replacingOccurrences(of: v19AuthorsLock, with: v20AuthorsLock)
        .replacingOccurrences(
            of:
                "-- The posts, then their authors, locked in ID order (the order every writer of a like, comment or post takes\n  -- them in)",
            with:
                "-- The posts locked, then their authors held, in ID order (the order every writer of a like, comment or post\n  -- takes them in)"
        )

    static let v19AuthorsLock = """
        PERFORM 1 FROM users WHERE id IN (SELECT p.author_id FROM posts p WHERE p.id = ANY(found))
            ORDER BY id FOR NO KEY UPDATE;
        """
    static let v20AuthorsLock = """
        PERFORM 1 FROM users WHERE id IN (SELECT p.author_id FROM posts p WHERE p.id = ANY(found))
            ORDER BY id FOR KEY SHARE;
        """
}

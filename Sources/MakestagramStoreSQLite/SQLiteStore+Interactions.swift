import Foundation
import GRDB
import MakestagramAPI
import MakestagramStore

extension SQLiteStore {
    /// Whether the post exists and `viewer` may see it (``Visibility``): its author's account is active (not
    /// suspended, not being deleted), neither blocks the other, and a private author accepted the viewer's follow. Every read and write of a post's likes, comments
    /// and reports asks this first, so a hidden post answers `notFound` everywhere, as its own page does.
    static func postVisible(_ db: Database, _ id: Int64, viewer: Int64) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: postVisibleSQL), arguments: [id, viewer]) ?? false
    }

    /// A row when post ?1 exists and viewer ?2 may see it (``postVisible(_:_:viewer:)``). The SQL is built once: a
    /// cached statement is looked up by its text, and a like asks this every time.
    static let visiblePostSQL = """
        SELECT 1 FROM posts p JOIN users a ON a.id = p.author_id AND a.status = 'active' WHERE p.id = ?1
          AND \(Visibility.readable(viewer: "?2", author: "a"))
        """
    static let postVisibleSQL = "SELECT EXISTS (\(visiblePostSQL))"
    /// A row when post ?1 exists, whoever ?2 is.
    static let anyPostSQL = "SELECT 1 FROM posts WHERE id = ?1 AND ?2 = ?2"

    /// The refusal of a change to a post that is not `viewer`'s: `forbidden` when they may see it, `notFound` when
    /// they may not (to them it does not exist).
    static func notYours(_ db: Database, post: Int64, viewer: Int64) throws -> StoreError {
        try postVisible(db, post, viewer: viewer) ? .forbidden : .notFound("post")
    }

    public func setLike(postID: Int64, viewer: Int64, liked: Bool) async throws -> LikeState {
        try await write { db in try changeLike(db, postID: postID, viewer: viewer, liked: liked).state(for: viewer) }
    }

    /// Likes or unlikes a post inside the current transaction, publishing the change if there was one, and answers
    /// the post's like state after it. A post nobody may see is `notFound`, unless `anyPost` (an account being
    /// deleted takes back its likes wherever they are).
    func changeLike(_ db: Database, postID: Int64, viewer: Int64, liked: Bool, anyPost: Bool = false) throws
        -> LikeChange
    {
        // Cached statements: toggles are the hottest writes, and parsing SQL showed in their profile.
        let exists = try db.cachedStatement(sql: anyPost ? Self.anyPostSQL : Self.visiblePostSQL)
        guard (try Int.fetchOne(exists, arguments: [postID, viewer])) != nil else { throw StoreError.notFound("post") }
        if liked {
            try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO likes (post_id, user_id, created_at) VALUES (?, ?, ?)"
            )
            .execute(arguments: [postID, viewer, Self.now])
        } else {
            try db.cachedStatement(sql: "DELETE FROM likes WHERE post_id = ? AND user_id = ?")
                .execute(arguments: [postID, viewer])
        }
        let changed = db.changesCount > 0
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT p.like_count, p.likers_preview, p.version, p.author_id AS post_author,
                      p.hide_like_count, u.id AS author_id, u.username, u.display_name, u.avatar_file
                    FROM posts p, users u WHERE p.id = ? AND u.id = ?
                    """),
            arguments: [postID, viewer])
        guard let row else { throw StoreError.notFound("post") }
        let likers: String = row["likers_preview"]
        let change = LikeChange(
            postID: postID, actor: PostQuery.author(row), liked: liked, likeCount: row["like_count"],
            likers: likerNames(likers, hiding: hiddenNames), version: row["version"], authorID: row["post_author"],
            countHidden: row["hide_like_count"])
        // A like that changed nothing (already liked, or not liked) is not an event.
        if changed { try publishOnCommit(db, .likeChanged(change)) }
        return change
    }

    /// A post's comment count and version, as they are inside the current transaction.
    static func commentState(_ db: Database, postID: Int64) throws -> (count: Int, version: Int64) {
        let row = try Row.fetchOne(
            db, sql: "SELECT comment_count, version FROM posts WHERE id = ?", arguments: [postID])
        guard let row else { throw StoreError.notFound("post") }
        return (row["comment_count"], row["version"])
    }

    public func likers(postID: Int64, viewer: Int64, page: PageRequest) async throws -> PageResult<UserSummary>? {
        try await read { db in
            guard try Self.postVisible(db, postID, viewer: viewer) else { return nil }
            return try fetchPage(
                db,
                sql: { condition in
                    """
                    SELECT l.id AS page_key, u.id AS author_id, u.username, u.display_name, u.avatar_file
                    FROM likes l JOIN users u ON u.id = l.user_id AND u.status = 'active'
                    WHERE l.post_id = :post AND \(Visibility.unblocked(viewer: ":viewer", user: "u.id"))
                      AND \(condition) ORDER BY l.id DESC LIMIT :limit
                    """
                }, arguments: ["post": postID, "viewer": viewer], key: "l.id", descending: true, page: page,
                decode: PostQuery.author)
        }
    }

    static let commentColumns = """
        c.id, c.id AS page_key, c.post_id, c.text, c.created_at,
        u.id AS author_id, u.username, u.display_name, u.avatar_file
        """

    static func comment(_ row: Row) -> Comment {
        Comment(
            id: row["id"], postId: row["post_id"], author: PostQuery.author(row), text: row["text"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]))
    }

    public func addComment(postID: Int64, author: Int64, text: String) async throws -> Comment {
        try await write { db in try insertComment(db, postID: postID, author: author, text: text) }
    }

    /// Adds the comment within the transaction of `db`, its change published on commit.
    func insertComment(_ db: Database, postID: Int64, author: Int64, text: String) throws -> Comment {
        guard try Self.postVisible(db, postID, viewer: author) else { throw StoreError.notFound("post") }
        try db.execute(
            sql: "INSERT INTO comments (post_id, author_id, text, created_at) VALUES (?, ?, ?, ?)",
            arguments: [postID, author, text, Self.now])
        let row = try Row.fetchOne(
            db,
            sql: "SELECT \(Self.commentColumns) FROM comments c JOIN users u ON u.id = c.author_id WHERE c.id = ?",
            arguments: [db.lastInsertedRowID])
        guard let row else { throw StoreError.notFound("comment") }
        let comment = Self.comment(row)
        try publishOnCommit(
            db,
            {
                let state = try Self.commentState(db, postID: postID)
                return .commentCreated(comment: comment, commentCount: state.count, version: state.version)
            }())
        return comment
    }

    public func comments(postID: Int64, viewer: Int64, page: PageRequest) async throws -> PageResult<Comment>? {
        try await read { db in
            guard try Self.postVisible(db, postID, viewer: viewer) else { return nil }
            return try fetchPage(
                db,
                sql: { condition in
                    """
                    SELECT \(Self.commentColumns) FROM comments c JOIN users u ON u.id = c.author_id AND u.status = 'active'
                    WHERE c.post_id = :post AND \(Visibility.unblocked(viewer: ":viewer", user: "u.id"))
                      AND \(condition) ORDER BY c.id ASC LIMIT :limit
                    """
                }, arguments: ["post": postID, "viewer": viewer], key: "c.id", descending: false, page: page,
                decode: Self.comment)
        }
    }

    public func comment(id: Int64, viewer: Int64) async throws -> Comment? {
        try await read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT \(Self.commentColumns) FROM comments c
                    JOIN users u ON u.id = c.author_id AND u.status = 'active'
                    JOIN posts p ON p.id = c.post_id JOIN users a ON a.id = p.author_id AND a.status = 'active'
                    WHERE c.id = ? AND \(Visibility.readable(viewer: String(viewer), author: "a"))
                      AND \(Visibility.unblocked(viewer: String(viewer), user: "u.id"))
                    """, arguments: [id]
            ).map(Self.comment)
        }
    }

    public func postOfComment(_ id: Int64) async throws -> Int64? {
        try await read { db in try Int64.fetchOne(db, sql: "SELECT post_id FROM comments WHERE id = ?", arguments: [id])
        }
    }

    public func deleteComment(id: Int64, viewer: Int64) async throws {
        try await write { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT c.author_id, c.post_id, p.author_id AS post_author FROM comments c
                        JOIN posts p ON p.id = c.post_id JOIN users a ON a.id = p.author_id AND a.status = 'active'
                        WHERE c.id = ?1 AND \(Visibility.readable(viewer: "?2", author: "a"))
                        """, arguments: [id, viewer])
            else { throw StoreError.notFound("comment") }
            guard row["author_id"] == viewer || row["post_author"] == viewer else { throw StoreError.forbidden }
            try removeComment(db, id: id, postID: row["post_id"])
        }
    }

    /// Deletes a comment inside the current transaction and publishes it.
    func removeComment(_ db: Database, id: Int64, postID: Int64) throws {
        guard
            let author = try Int64.fetchOne(
                db, sql: "DELETE FROM comments WHERE id = ? RETURNING author_id", arguments: [id])
        else { return }
        try publishOnCommit(
            db,
            {
                let state = try Self.commentState(db, postID: postID)
                return .commentDeleted(
                    commentID: id, postID: postID, commentCount: state.count, version: state.version, author: author)
            }())
    }

    public func report(postID: Int64, reporter: Int64, reason: String, forward: Bool) async throws {
        try await write { db in
            guard
                let author = try Int64.fetchOne(
                    db,
                    sql: """
                        SELECT p.author_id FROM posts p JOIN users a ON a.id = p.author_id AND a.status = 'active'
                        WHERE p.id = ?1 AND \(Visibility.readable(viewer: "?2", author: "a"))
                        """, arguments: [postID, reporter])
            else { throw StoreError.notFound("post") }
            if author == reporter { throw StoreError.cannotReportOwnPost }
            do {
                try db.execute(
                    sql: "INSERT INTO reports (post_id, reporter_id, reason, created_at) VALUES (?, ?, ?, ?)",
                    arguments: [postID, reporter, reason, Self.now])
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                throw StoreError.alreadyReported
            }
            if forward { try publishOnCommit(db, .reportForwarded(postID: postID, reason: reason)) }
        }
    }

    public func reportCount(postID: Int64) async throws -> Int? {
        try await read { db in
            try Int.fetchOne(db, sql: "SELECT report_count FROM posts WHERE id = ?", arguments: [postID])
        }
    }
}

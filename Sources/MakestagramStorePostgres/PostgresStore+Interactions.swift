import Foundation
import MakestagramAPI
import MakestagramStore
import PostgresNIO

extension PostgresStore {
    /// Whether the post exists and `viewer` may see it (``Visibility``): its author's account is active (not
    /// suspended, not being deleted), neither blocks the other, and a private author accepted the viewer's follow. Every read and write of a post's likes, comments
    /// and reports asks this first (`set_likes` in its own SQL), so a hidden post answers `notFound` everywhere, as
    /// its own page does.
    static func postVisible(_ connection: PostgresConnection, _ id: Int64, viewer: Int64, logger: Logger) async throws
        -> Bool
    {
        try await !connection.query(
            """
            SELECT 1 FROM posts p JOIN users a ON a.id = p.author_id AND a.status = 'active' WHERE p.id = \(id)
              AND \(unescaped: Visibility.readable(viewer: String(viewer), author: "a"))
            """, logger: logger
        ).collect().isEmpty
    }

    /// The refusal of a change to a post that is not `viewer`'s: `forbidden` when they may see it, `notFound` when
    /// they may not (to them it does not exist).
    static func notYours(_ connection: PostgresConnection, post: Int64, viewer: Int64, logger: Logger) async throws
        -> StoreError
    {
        try await postVisible(connection, post, viewer: viewer, logger: logger) ? .forbidden : .notFound("post")
    }

    /// One statement, one round trip, shared with the toggles that arrive meanwhile (``LikeBatches``): `set_likes`
    /// changes each like and reads the post's state after it, and the same statement logs each change's record, all
    /// in one transaction.
    public func setLike(postID: Int64, viewer: Int64, liked: Bool) async throws -> LikeState {
        let toggle = LikeBatches.Toggle(postID: postID, viewer: viewer, liked: liked)
        return try await likeBatches.submit(toggle) { [self] toggles in await sendLikes(toggles) }.state
    }

    /// Sends `toggles` in one transaction, publishes what changed, and answers each toggle's outcome. A batch
    /// refused as a whole (a user deleted meanwhile, say) is sent again one toggle at a time, so that only the toggle
    /// at fault fails; a database out of reach fails them all. A post nobody may see is `notFound`, unless `anyPost`
    /// (an account being deleted takes back its likes wherever they are).
    func sendLikes(_ toggles: [LikeBatches.Toggle], anyPost: Bool = false) async -> [Result<LikeOutcome, any Error>] {
        do {
            let outcomes = try await retrying {
                try await read { [logger, hiddenNames] connection in
                    let (posts, users, liked) = (toggles.map(\.postID), toggles.map(\.viewer), toggles.map(\.liked))
                    // One statement: the likes, then the records of those that changed something, per post in the
                    // order given (the posts' locks are held until commit, so their seqs are in commit order).
                    let rows = try await connection.query(
                        """
                        WITH s AS (SELECT * FROM set_likes(\(posts), \(users), \(liked), \(Self.now), \(anyPost))),
                        t AS (SELECT * FROM unnest(\(posts)::bigint[], \(users)::bigint[], \(liked)::boolean[])
                          WITH ORDINALITY AS t(post, usr, liked, ord)),
                        logged AS (
                          INSERT INTO changes (payload) SELECT \(unescaped: Self.likeRecord)::text
                          FROM s JOIN t ON t.ord = s.item WHERE s.changed ORDER BY t.post, t.ord
                        )
                        SELECT * FROM s ORDER BY s.item
                        """, logger: logger
                    ).collect()
                    var outcomes = [LikeOutcome?](repeating: nil, count: toggles.count)
                    for row in rows {
                        let (item, outcome) = try Self.likeOutcome(row, toggles: toggles, hiding: hiddenNames)
                        outcomes[item] = outcome
                    }
                    return outcomes
                }
            }
            committed(outcomes.compactMap { $0?.change }.map(StoreEvent.likeChanged))
            return outcomes.map { $0.map { .success($0) } ?? .failure(StoreError.notFound("post")) }
        } catch StoreError.unavailable(let reason) {
            return toggles.map { _ in .failure(StoreError.unavailable(reason)) }
        } catch {
            guard toggles.count > 1 else { return [.failure(error)] }
            var results: [Result<LikeOutcome, any Error>] = []
            for toggle in toggles { results.append(contentsOf: await sendLikes([toggle], anyPost: anyPost)) }
            return results
        }
    }

    /// A like's change record, built from a row of `set_likes` (`s`) and its toggle (`t`).
    static let likeRecord = ChangeRecord.sqlObject(
        .like,
        [
            .post: "t.post", .actor: "t.usr", .username: "s.username", .displayName: "s.display_name",
            .avatarFile: "s.avatar_file", .on: "t.liked", .count: "s.like_count", .likers: "s.likers_preview",
            .version: "s.version", .owner: "s.author_id", .hidden: "s.hide_like_count",
        ])

    /// One row of `set_likes`: which toggle it answers (from 0) and its outcome.
    static func likeOutcome(_ row: PostgresRow, toggles: [LikeBatches.Toggle], hiding hiddenNames: Set<String>) throws
        -> (Int, LikeOutcome?)
    {
        let (item, changed, count, likers, version, username, displayName, avatar, author, hidden, blocked) =
            try row.decode((Int32, Bool, Int, String, Int64, String, String, String?, Int64, Bool, Bool).self)
        let index = Int(item) - 1
        guard toggles.indices.contains(index) else { throw StoreError.database("set_likes answered item \(item)") }
        let toggle = toggles[index]
        let actor = UserSummary(
            id: toggle.viewer, username: username, displayName: displayName,
            avatarURL: avatar.map(MediaPath.url(for:)))
        let change = LikeChange(
            postID: toggle.postID, actor: actor, liked: toggle.liked, likeCount: count,
            likers: likerNames(likers, hiding: hiddenNames),
            version: version, authorID: author, countHidden: hidden)
        // A toggle the visibility rule refused (a block, or a private account's post): no such post, for them.
        if blocked { return (index, nil) }
        return (index, LikeOutcome(state: change.state(for: toggle.viewer), change: changed ? change : nil))
    }

    public func likers(postID: Int64, viewer: Int64, page: PageRequest) async throws -> PageResult<UserSummary>? {
        try await read { [logger] connection in
            guard try await Self.postVisible(connection, postID, viewer: viewer, logger: logger) else { return nil }
            var sql = SQL(
                "SELECT u.id, u.username, u.display_name, u.avatar_file, l.id FROM likes l JOIN users u ON u.id = l.user_id"
                    + " AND u.status = 'active'"
            )
            sql.append(" WHERE l.post_id = \(sql.bind(postID)) AND ")
            sql.append(Visibility.unblocked(viewer: String(viewer), user: "u.id"))
            return try await PostRows.page(
                connection, sql, key: "l.id", descending: true, page: page, logger: logger, decode: PostRows.summary)
        }
    }

    /// A post's comment count and version, as they are inside the current transaction.
    static func commentState(_ connection: PostgresConnection, postID: Int64, logger: Logger) async throws -> (
        count: Int, version: Int64
    ) {
        let rows = try await connection.query(
            "SELECT comment_count, version FROM posts WHERE id = \(postID)", logger: logger
        ).collect()
        guard let row = rows.first else { throw StoreError.notFound("post") }
        let (count, version) = try row.decode((Int, Int64).self)
        return (count, version)
    }

    public func addComment(postID: Int64, author: Int64, text: String) async throws -> Comment {
        try await write { [logger] connection, changes in
            try await Self.insertComment(
                connection, postID: postID, author: author, text: text, changes: changes, logger: logger)
        }
    }

    /// Adds the comment within the transaction on `connection`, its change in `changes`.
    static func insertComment(
        _ connection: PostgresConnection, postID: Int64, author: Int64, text: String, changes: Changes, logger: Logger
    ) async throws -> Comment {
        guard try await Self.postVisible(connection, postID, viewer: author, logger: logger) else {
            throw StoreError.notFound("post")
        }
        let rows = try await connection.query(
            """
            WITH added AS (
              INSERT INTO comments (post_id, author_id, text, created_at)
              VALUES (\(postID), \(author), \(text), \(Self.now)) RETURNING *)
            SELECT \(unescaped: PostRows.commentColumns) FROM added c JOIN users u ON u.id = c.author_id
            """, logger: logger
        ).collect()
        guard let row = rows.first else { throw StoreError.notFound("comment") }
        let comment = try PostRows.comment(row)
        let state = try await Self.commentState(connection, postID: postID, logger: logger)
        changes.publish(.commentCreated(comment: comment, commentCount: state.count, version: state.version))
        return comment
    }

    public func comments(postID: Int64, viewer: Int64, page: PageRequest) async throws -> PageResult<Comment>? {
        try await read { [logger] connection in
            guard try await Self.postVisible(connection, postID, viewer: viewer, logger: logger) else { return nil }
            var sql = SQL(
                "SELECT \(PostRows.commentColumns), c.id FROM comments c JOIN users u ON u.id = c.author_id"
                    + " AND u.status = 'active'")
            sql.append(" WHERE c.post_id = \(sql.bind(postID)) AND ")
            sql.append(Visibility.unblocked(viewer: String(viewer), user: "u.id"))
            return try await PostRows.page(
                connection, sql, key: "c.id", descending: false, page: page, logger: logger, decode: PostRows.comment)
        }
    }

    public func comment(id: Int64, viewer: Int64) async throws -> Comment? {
        try await read { [logger] connection in
            try await connection.query(
                """
                SELECT \(unescaped: PostRows.commentColumns) FROM comments c
                JOIN users u ON u.id = c.author_id AND u.status = 'active'
                JOIN posts p ON p.id = c.post_id JOIN users a ON a.id = p.author_id AND a.status = 'active'
                WHERE c.id = \(id) AND \(unescaped: Visibility.readable(viewer: String(viewer), author: "a"))
                  AND \(unescaped: Visibility.unblocked(viewer: String(viewer), user: "u.id"))
                """, logger: logger
            ).collect().first.map(PostRows.comment)
        }
    }

    public func postOfComment(_ id: Int64) async throws -> Int64? {
        try await read { [logger] connection in
            try await connection.query("SELECT post_id FROM comments WHERE id = \(id)", logger: logger)
                .collect().first?.decode(Int64.self)
        }
    }

    public func deleteComment(id: Int64, viewer: Int64) async throws {
        try await write { [logger] connection, changes in
            let rows = try await connection.query(
                """
                SELECT c.author_id, c.post_id, p.author_id FROM comments c JOIN posts p ON p.id = c.post_id
                JOIN users a ON a.id = p.author_id AND a.status = 'active'
                WHERE c.id = \(id) AND \(unescaped: Visibility.readable(viewer: String(viewer), author: "a"))
                FOR UPDATE OF c
                """, logger: logger
            ).collect()
            guard let row = rows.first else { throw StoreError.notFound("comment") }
            let (author, postID, postAuthor) = try row.decode((Int64, Int64, Int64).self)
            guard author == viewer || postAuthor == viewer else { throw StoreError.forbidden }
            guard try await Self.removeComment(connection, id: id, postID: postID, changes: changes, logger: logger)
            else { throw StoreError.notFound("comment") }
        }
    }

    /// Deletes a comment inside the current transaction and publishes it; false when it was gone already.
    static func removeComment(
        _ connection: PostgresConnection, id: Int64, postID: Int64, changes: Changes, logger: Logger
    ) async throws -> Bool {
        let deleted = try await connection.query(
            "DELETE FROM comments WHERE id = \(id) RETURNING author_id", logger: logger
        ).collect()
        guard let author = try deleted.first?.decode(Int64.self) else { return false }
        let state = try await commentState(connection, postID: postID, logger: logger)
        changes.publish(
            .commentDeleted(
                commentID: id, postID: postID, commentCount: state.count, version: state.version, author: author))
        return true
    }

    public func report(postID: Int64, reporter: Int64, reason: String, forward: Bool) async throws {
        do {
            try await write { [logger] connection, changes in
                let rows = try await connection.query(
                    """
                    SELECT p.author_id FROM posts p JOIN users a ON a.id = p.author_id AND a.status = 'active'
                    WHERE p.id = \(postID)
                      AND \(unescaped: Visibility.readable(viewer: String(reporter), author: "a"))
                    """, logger: logger
                ).collect()
                guard let author = try rows.first?.decode(Int64.self) else { throw StoreError.notFound("post") }
                if author == reporter { throw StoreError.cannotReportOwnPost }
                try await connection.query(
                    """
                    INSERT INTO reports (post_id, reporter_id, reason, created_at)
                    VALUES (\(postID), \(reporter), \(reason), \(Self.now))
                    """, logger: logger)
                if forward { changes.publish(.reportForwarded(postID: postID, reason: reason)) }
            }
        } catch PostgresFailure.uniqueViolation {
            throw StoreError.alreadyReported
        }
    }

    public func reportCount(postID: Int64) async throws -> Int? {
        try await read { [logger] connection in
            try await connection.query("SELECT report_count FROM posts WHERE id = \(postID)", logger: logger)
                .collect().first?.decode(Int.self)
        }
    }
}

import Foundation
import MakestagramAPI
import MakestagramStore
import PostgresNIO

extension PostgresStore {
    public func changes(for consumer: String, limit: Int) async throws -> ChangeBatch {
        try await read { [logger] connection in
            // The sequence's last value, for a position of the earlier form: read before the snapshot of its read.
            guard
                let (text, lastSeq) = try await connection.query(
                    """
                    SELECT position, (SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM change_seq)
                    FROM change_consumers WHERE name = \(consumer)
                    """, logger: logger
                ).collect().first?.decode((String, Int64).self)
            else { throw StoreError.notFound("change consumer \(consumer)") }
            let read: ChangeLogRead
            if let position = LogPosition(text) {
                read = try await Self.readLog(connection, from: position, limit: limit, logger: logger).read
            } else if let position = ConsumerPosition(text) {
                read = try await Self.readLog(
                    connection, from: position, lastSeq: lastSeq, limit: limit, logger: logger)
            } else {
                throw StoreError.database("unreadable position of change consumer \(consumer): \(text)")
            }
            var changes: [LoggedChange] = []
            for row in read.rows {
                if let record = ChangeRecord(payload: row.payload),
                    let event = record.event(audience: record.audienceAuthor.map { [$0] } ?? [])
                {
                    changes.append(LoggedChange(event: event, at: Date(timeIntervalSince1970: row.at)))
                }
            }
            // The snapshot moves on by itself as transactions end: a batch that read nothing is not worth a write.
            // `from` is the position as stored, which the move compares.
            return ChangeBatch(changes: changes, read: read.rows.count, from: text, to: read.next)
        }
    }

    public func applyActivity(_ writes: [ActivityWrite], consumer: String, batch: ChangeBatch) async throws -> Bool {
        try await write { [logger] connection, changes in
            guard try await Self.moveConsumer(connection, consumer, over: batch, logger: logger) else { return false }
            var touched = Set<Int64>()
            for step in ActivityWrite.coalesced(writes) {
                switch step {
                case .bySource(let remove, let add):
                    touched.formUnion(try await Self.apply(remove: remove, add: add, connection, logger: logger))
                case .other(let write):
                    touched.formUnion(try await Self.apply(write, connection, logger: logger))
                }
            }
            if !touched.isEmpty {
                for row in try await connection.query(
                    """
                    SELECT u.id, coalesce(r.count, 0) FROM users u LEFT JOIN unread_activity r ON r.user_id = u.id
                    WHERE u.id = ANY(\(touched.sorted())::bigint[]) ORDER BY u.id
                    """,
                    logger: logger
                ).collect() {
                    let (user, unread) = try row.decode((Int64, Int).self)
                    changes.publish(.activityChanged(user: user, unreadCount: unread))
                }
            }
            return true
        }
    }

    /// Moves durable consumer `consumer` from `batch.from` to `batch.to` in the current transaction; false when it no
    /// longer stands at `batch.from` (another instance applied the batch first).
    static func moveConsumer(
        _ connection: PostgresConnection, _ consumer: String, over batch: ChangeBatch, logger: Logger
    )
        async throws -> Bool
    {
        try await !connection.query(
            """
            UPDATE change_consumers SET position = \(batch.to)
            WHERE name = \(consumer) AND position = \(batch.from) RETURNING 1
            """, logger: logger
        ).collect().isEmpty
    }

    /// Withdraws the entries of `remove` and adds `add` (distinct sources) in two statements, in the current
    /// transaction; answers the users whose activity changed.
    static func apply(remove: [String], add: [ActivityEntry], _ connection: PostgresConnection, logger: Logger)
        async throws -> [Int64]
    {
        var touched: [Int64] = []
        if !remove.isEmpty {
            for row in try await connection.query(
                "DELETE FROM activity WHERE source = ANY(\(remove)::text[]) RETURNING recipient_id", logger: logger
            ).collect() {
                touched.append(try row.decode(Int64.self))
            }
        }
        let add = try await readable(add, connection, logger: logger)
        if !add.isEmpty {
            // Arrays cannot hold NULL here: 0 stands for no post or comment (IDs start at 1). Entries are inserted in
            // their order: an entry's ID orders the activity list.
            let recipients = add.map(\.recipient)
            let actors = add.map(\.actor)
            let kinds = add.map(\.kind.rawValue)
            let posts = add.map { $0.post ?? 0 }
            let comments = add.map { $0.comment ?? 0 }
            let sources = add.map(\.source)
            let groups = add.map(\.group)
            let unread = add.map { $0.unread ? 1 : 0 }
            let created = add.map(\.createdAt.timeIntervalSince1970)
            for row in try await connection.query(
                """
                INSERT INTO activity (recipient_id, actor_id, kind, post_id, comment_id, source, group_key, unread,
                  created_at)
                SELECT e.recipient, e.actor, e.kind, NULLIF(e.post, 0), NULLIF(e.comment, 0), e.source, e.grp,
                  e.unread, e.created
                FROM unnest(\(recipients)::bigint[], \(actors)::bigint[], \(kinds)::text[], \(posts)::bigint[],
                  \(comments)::bigint[], \(sources)::text[], \(groups)::text[], \(unread)::int[],
                  \(created)::float8[]) WITH ORDINALITY
                  AS e(recipient, actor, kind, post, comment, source, grp, unread, created, n)
                WHERE EXISTS (SELECT 1 FROM users WHERE id = e.recipient)
                  AND NOT EXISTS (SELECT 1 FROM remote_actors WHERE user_id = e.recipient)
                  AND NOT EXISTS (SELECT 1 FROM mutes WHERE muter_id = e.recipient AND muted_id = e.actor)
                  AND \(unescaped: Visibility.unblocked(viewer: "e.recipient", user: "e.actor"))
                ORDER BY e.n
                ON CONFLICT (source) DO NOTHING RETURNING recipient_id
                """, logger: logger
            ).collect() {
                touched.append(try row.decode(Int64.self))
            }
        }
        return touched
    }

    /// `entries` without the mentions whose recipient may not open the post they name (a private account's,
    /// mentioning someone who does not follow it): nobody hears of a post they cannot see. Only mentions can name
    /// such a post, so the others cost nothing.
    static func readable(_ entries: [ActivityEntry], _ connection: PostgresConnection, logger: Logger) async throws
        -> [ActivityEntry]
    {
        let mentions = entries.indices.filter { entries[$0].kind == .mention && entries[$0].post != nil }
        guard !mentions.isEmpty else { return entries }
        let posts = mentions.map { entries[$0].post ?? 0 }
        let recipients = mentions.map { entries[$0].recipient }
        var seen = Set<Int>()
        for row in try await connection.query(
            """
            SELECT e.n FROM unnest(\(posts)::bigint[], \(recipients)::bigint[]) WITH ORDINALITY AS e(post, recipient, n)
            WHERE EXISTS (
              SELECT 1 FROM posts p JOIN users a ON a.id = p.author_id
              WHERE p.id = e.post AND \(unescaped: Visibility.readable(viewer: "e.recipient", author: "a")))
            """, logger: logger
        ).collect() {
            seen.insert(mentions[Int(try row.decode(Int64.self)) - 1])
        }
        let checked = Set(mentions)
        return entries.indices.filter { !checked.contains($0) || seen.contains($0) }.map { entries[$0] }
    }

    /// Applies one activity write in the current transaction; answers the users whose activity it changed.
    static func apply(_ write: ActivityWrite, _ connection: PostgresConnection, logger: Logger) async throws
        -> [Int64]
    {
        let rows: [PostgresRow]
        switch write {
        case .add(let entry):
            guard try await !readable([entry], connection, logger: logger).isEmpty else { return [] }
            rows = try await connection.query(
                """
                INSERT INTO activity (recipient_id, actor_id, kind, post_id, comment_id, source, group_key, unread,
                  created_at)
                SELECT \(entry.recipient), \(entry.actor), \(entry.kind.rawValue), \(entry.post), \(entry.comment),
                  \(entry.source), \(entry.group), \(entry.unread ? 1 : 0), \(entry.createdAt.timeIntervalSince1970)
                WHERE EXISTS (SELECT 1 FROM users WHERE id = \(entry.recipient))
                  AND NOT EXISTS (
                    SELECT 1 FROM mutes WHERE muter_id = \(entry.recipient) AND muted_id = \(entry.actor))
                  AND \(unescaped: Visibility.unblocked(viewer: String(entry.recipient), user: String(entry.actor)))
                ON CONFLICT (source) DO NOTHING RETURNING recipient_id, unread
                """, logger: logger
            ).collect()
        case .remove(let source):
            rows = try await connection.query(
                "DELETE FROM activity WHERE source = \(source) RETURNING recipient_id, unread", logger: logger
            ).collect()
        case .removePost(let post):
            rows = try await connection.query(
                "DELETE FROM activity WHERE post_id = \(post) RETURNING recipient_id, unread", logger: logger
            ).collect()
        case .removeComment(let comment):
            rows = try await connection.query(
                "DELETE FROM activity WHERE comment_id = \(comment) RETURNING recipient_id, unread", logger: logger
            ).collect()
        case .removeActor(let actor, nil):
            rows = try await connection.query(
                "DELETE FROM activity WHERE actor_id = \(actor) RETURNING recipient_id, unread", logger: logger
            ).collect()
        case .removeActor(let actor, let recipient?):
            rows = try await connection.query(
                """
                DELETE FROM activity WHERE actor_id = \(actor) AND recipient_id = \(recipient)
                RETURNING recipient_id, unread
                """, logger: logger
            ).collect()
        case .keepPostMentions(let post, let sources):
            rows = try await connection.query(
                """
                DELETE FROM activity WHERE post_id = \(post) AND kind = 'mention' AND comment_id IS NULL
                  AND NOT source = ANY(\(sources.sorted())::text[])
                RETURNING recipient_id, unread
                """, logger: logger
            ).collect()
        }
        return try rows.map { row in
            let (recipient, _) = try row.decode((Int64, Int).self)
            return recipient
        }
    }

    public func postAuthors(_ ids: [Int64]) async throws -> [Int64: Int64] {
        guard !ids.isEmpty else { return [:] }
        return try await read { [logger] connection in
            var authors: [Int64: Int64] = [:]
            for row in try await connection.query(
                "SELECT id, author_id FROM posts WHERE id = ANY(\(ids)::bigint[])", logger: logger
            ).collect() {
                let (post, author) = try row.decode((Int64, Int64).self)
                authors[post] = author
            }
            return authors
        }
    }

    public func userIDs(usernames: Set<String>) async throws -> [String: Int64] {
        guard !usernames.isEmpty else { return [:] }
        return try await read { [logger] connection in
            var ids: [String: Int64] = [:]
            for row in try await connection.query(
                """
                SELECT username, id FROM users WHERE username = ANY(\(usernames.sorted())::text[]) AND status = 'active'
                """, logger: logger
            ).collect() {
                let (name, id) = try row.decode((String, Int64).self)
                ids[name] = id
            }
            return ids
        }
    }

    public func actions(of user: Int64) async throws -> UserActions {
        try await read { [logger] connection in
            var likes: [UserActions.Like] = []
            for row in try await connection.query(
                """
                SELECT l.post_id, p.author_id, l.created_at FROM likes l JOIN posts p ON p.id = l.post_id
                WHERE l.user_id = \(user)
                """, logger: logger
            ).collect() {
                let (post, author, at) = try row.decode((Int64, Int64, Double).self)
                likes.append(UserActions.Like(post: post, author: author, at: Date(timeIntervalSince1970: at)))
            }
            var comments: [(comment: Comment, postAuthor: Int64)] = []
            for row in try await connection.query(
                """
                SELECT \(unescaped: PostRows.commentColumns), p.author_id FROM comments c
                JOIN users u ON u.id = c.author_id JOIN posts p ON p.id = c.post_id WHERE c.author_id = \(user)
                """, logger: logger
            ).collect() {
                let (id, post, text, at, author, username, displayName, avatar, postAuthor) = try row.decode(
                    (Int64, Int64, String, Double, Int64, String, String, String?, Int64).self)
                let comment = Comment(
                    id: id, postId: post,
                    author: UserSummary(
                        id: author, username: username, displayName: displayName,
                        avatarURL: avatar.map(MediaPath.url(for:))),
                    text: text, createdAt: Date(timeIntervalSince1970: at))
                comments.append((comment, postAuthor))
            }
            var follows: [UserActions.Follow] = []
            for row in try await connection.query(
                "SELECT followee_id, created_at FROM follows WHERE follower_id = \(user)", logger: logger
            ).collect() {
                let (followee, at) = try row.decode((Int64, Double).self)
                follows.append(UserActions.Follow(followee: followee, at: Date(timeIntervalSince1970: at)))
            }
            var posts: [(id: Int64, caption: String, at: Date)] = []
            for row in try await connection.query(
                "SELECT id, caption, created_at FROM posts WHERE author_id = \(user)", logger: logger
            ).collect() {
                let (id, caption, at) = try row.decode((Int64, String, Double).self)
                posts.append((id, caption, Date(timeIntervalSince1970: at)))
            }
            return UserActions(likes: likes, comments: comments, follows: follows, posts: posts)
        }
    }
}

import Foundation
import GRDB
import MakestagramAPI
import MakestagramStore

extension SQLiteStore {
    /// A user's unread activity count (0 without a row in `unread_activity`); no row for a user who does not exist.
    static let unreadCountSQL = """
        SELECT coalesce((SELECT count FROM unread_activity WHERE user_id = u.id), 0) FROM users u WHERE u.id = ?
        """

    public func activity(userID: Int64, page: PageRequest) async throws -> PageResult<ActivityGroup> {
        try await read { db in
            let groups = try fetchPage(
                db,
                sql: { condition in
                    """
                    SELECT g.newest_id AS page_key, g.group_key, g.kind, g.size, g.unread, p.id, p.thumb_file,
                      pa.is_private
                    FROM activity_groups g LEFT JOIN posts p ON p.id = g.post_id LEFT JOIN users pa ON pa.id = p.author_id
                    WHERE g.recipient_id = :user AND \(condition) ORDER BY g.newest_id DESC LIMIT :limit
                    """
                }, arguments: ["user": userID], key: "g.newest_id", descending: true, page: page,
                decode: { row in
                    (
                        key: row["group_key"] as String, kind: row["kind"] as String, size: row["size"] as Int,
                        unread: row["unread"] as Int, postID: row["id"] as Int64?, thumb: row["thumb_file"] as String?,
                        guarded: (row["is_private"] as Bool?) ?? false
                    )
                })
            let actors = try db.cachedStatement(
                sql: """
                    SELECT a.id, a.created_at, a.comment_id, c.text,
                      u.id AS author_id, u.username, u.display_name, u.avatar_file
                    FROM activity a JOIN users u ON u.id = a.actor_id LEFT JOIN comments c ON c.id = a.comment_id
                    WHERE a.recipient_id = ? AND a.group_key = ? ORDER BY a.id DESC LIMIT \(ActivityGroup.actorsShown)
                    """)
            var items: [ActivityGroup] = []
            for group in groups.items {
                let key = group.key
                let rows = try Row.fetchAll(actors, arguments: [userID, key])
                guard let newest = rows.first, let kind = ActivityGroup.Kind(rawValue: group.kind) else { continue }
                let postID = group.postID
                let thumb = group.thumb
                let commentID: Int64? = newest["comment_id"]
                let text: String? = newest["text"]
                items.append(
                    ActivityGroup(
                        id: key, kind: kind, actors: rows.map(PostQuery.author), actorCount: group.size,
                        post: postID.flatMap { id in
                            thumb.map {
                                ActivityPost(
                                    id: id,
                                    thumbnailURL: group.guarded ? mediaSigning.url(for: $0) : MediaPath.url(for: $0))
                            }
                        },
                        comment: commentID.flatMap { id in text.map { ActivityComment(id: id, text: $0) } },
                        createdAt: Date(timeIntervalSince1970: newest["created_at"]), unread: group.unread > 0,
                        latestId: newest["id"]))
            }
            return PageResult(items: items, nextKey: groups.nextKey, newestKey: items.first?.latestId)
        }
    }

    public func unreadActivityCount(userID: Int64) async throws -> Int {
        try await read { db in
            try Int.fetchOne(db.cachedStatement(sql: Self.unreadCountSQL), arguments: [userID]) ?? 0
        }
    }

    public func markActivityRead(userID: Int64, through: Int64?) async throws -> Int {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE activity SET unread = 0 WHERE recipient_id = ? AND unread = 1 AND id <= ?
                    """, arguments: [userID, through ?? Int64.max])
            let changed = db.changesCount > 0
            let unread = try Int.fetchOne(db.cachedStatement(sql: Self.unreadCountSQL), arguments: [userID]) ?? 0
            if changed { try publishOnCommit(db, .activityChanged(user: userID, unreadCount: unread)) }
            return unread
        }
    }

    // MARK: The change log, for its durable consumers

    public func changes(for consumer: String, limit: Int) async throws -> ChangeBatch {
        try await read { db in
            guard
                let position = try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT position FROM change_consumers WHERE name = ?"),
                    arguments: [consumer])
            else { throw StoreError.notFound("change consumer \(consumer)") }
            var changes: [LoggedChange] = []
            var read = 0
            var last = position
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: "SELECT seq, payload, created_at FROM changes WHERE seq > ? ORDER BY seq LIMIT ?"),
                arguments: [position, limit])
            while let row = try rows.next() {
                last = row[0]
                read += 1
                let payload: String = row[1]
                guard let record = ChangeRecord(payload: payload),
                    let event = record.event(audience: record.audienceAuthor.map { [$0] } ?? [])
                else {
                    continue
                }
                changes.append(LoggedChange(event: event, at: Date(timeIntervalSince1970: row[2])))
            }
            return ChangeBatch(changes: changes, read: read, from: String(position), to: String(last))
        }
    }

    public func applyActivity(_ writes: [ActivityWrite], consumer: String, batch: ChangeBatch) async throws -> Bool {
        try await write { db in
            guard try Self.moveConsumer(db, consumer, over: batch) else { return false }
            var touched = Set<Int64>()
            for write in writes { touched.formUnion(try Self.apply(write, db)) }
            // Cached statements here and in every step of a round: preparing them anew was 4 % of the server's
            // samples during like toggles, most of it this one, once per user whose activity changed.
            let unreadCount = try db.cachedStatement(sql: Self.unreadCountSQL)
            for user in touched.sorted() {
                guard let unread = try Int.fetchOne(unreadCount, arguments: [user]) else { continue }
                try publishOnCommit(db, .activityChanged(user: user, unreadCount: unread))
            }
            try Self.pruneChanges(db, upTo: batch)
            return true
        }
    }

    /// Moves durable consumer `consumer` from `batch.from` to `batch.to` in the current transaction; false when it no
    /// longer stands at `batch.from` (another instance applied the batch first).
    static func moveConsumer(_ db: Database, _ consumer: String, over batch: ChangeBatch) throws -> Bool {
        guard let from = Int64(batch.from), let to = Int64(batch.to) else {
            throw StoreError.database("a change position of another store")
        }
        try db.cachedStatement(sql: "UPDATE change_consumers SET position = ? WHERE name = ? AND position = ?")
            .execute(arguments: [to, consumer, from])
        return db.changesCount == 1
    }

    /// Removes what every durable consumer has read, up to the end of `batch`.
    static func pruneChanges(_ db: Database, upTo batch: ChangeBatch) throws {
        try db.cachedStatement(
            sql: "DELETE FROM changes WHERE seq <= (SELECT min(position) FROM change_consumers) AND seq <= ?"
        )
        .execute(arguments: [Int64(batch.to) ?? 0])
    }

    /// Applies one activity write in the current transaction; answers the users whose activity it changed.
    static func apply(_ write: ActivityWrite, _ db: Database) throws -> [Int64] {
        switch write {
        case .add(let entry):
            // Nobody hears of a post they may not open (a private account's, mentioning someone who does not follow
            // it): only mentions can name such a post.
            if entry.kind == .mention, let post = entry.post, try !postVisible(db, post, viewer: entry.recipient) {
                return []
            }
            let added = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        INSERT INTO activity (recipient_id, actor_id, kind, post_id, comment_id, source, group_key,
                          unread, created_at)
                        SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM users WHERE id = ?)
                          AND NOT EXISTS (SELECT 1 FROM remote_actors WHERE user_id = ?)
                          AND NOT EXISTS (SELECT 1 FROM mutes WHERE muter_id = ? AND muted_id = ?)
                          AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ?)
                          AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ?)
                        ON CONFLICT (source) DO NOTHING
                        RETURNING recipient_id, unread
                        """),
                arguments: [
                    entry.recipient, entry.actor, entry.kind.rawValue, entry.post, entry.comment, entry.source,
                    entry.group, entry.unread, entry.createdAt.timeIntervalSince1970, entry.recipient, entry.recipient,
                    entry.recipient, entry.actor, entry.recipient, entry.actor, entry.actor, entry.recipient,
                ])
            return added.map { [$0[0] as Int64] } ?? []
        case .remove(let source):
            return try unreadRecipients(
                db.cachedStatement(sql: "DELETE FROM activity WHERE source = ? RETURNING recipient_id, unread"),
                arguments: [source])
        case .removePost(let post):
            return try unreadRecipients(
                db.cachedStatement(sql: "DELETE FROM activity WHERE post_id = ? RETURNING recipient_id, unread"),
                arguments: [post])
        case .removeComment(let comment):
            return try unreadRecipients(
                db.cachedStatement(sql: "DELETE FROM activity WHERE comment_id = ? RETURNING recipient_id, unread"),
                arguments: [comment])
        case .removeActor(let actor, nil):
            return try unreadRecipients(
                db.cachedStatement(sql: "DELETE FROM activity WHERE actor_id = ? RETURNING recipient_id, unread"),
                arguments: [actor])
        case .removeActor(let actor, let recipient?):
            return try unreadRecipients(
                db.cachedStatement(
                    sql: "DELETE FROM activity WHERE actor_id = ? AND recipient_id = ? RETURNING recipient_id, unread"),
                arguments: [actor, recipient])
        case .keepPostMentions(let post, let sources):
            let keep = "[" + sources.sorted().map { "\"\($0)\"" }.joined(separator: ",") + "]"
            return try unreadRecipients(
                db.makeStatement(
                    sql: """
                        DELETE FROM activity WHERE post_id = ? AND kind = 'mention' AND comment_id IS NULL
                          AND source NOT IN (SELECT value FROM json_each(?))
                        RETURNING recipient_id, unread
                        """), arguments: [post, keep])
        }
    }

    /// The recipients of the rows a `DELETE … RETURNING recipient_id, unread` removed: whose activity changed.
    static func unreadRecipients(_ statement: Statement, arguments: StatementArguments) throws -> [Int64] {
        try Row.fetchAll(statement, arguments: arguments).map { $0[0] as Int64 }
    }

    public func postAuthors(_ ids: [Int64]) async throws -> [Int64: Int64] {
        guard !ids.isEmpty else { return [:] }
        let list = "[" + ids.map(String.init).joined(separator: ",") + "]"
        return try await read { db in
            var authors: [Int64: Int64] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT id, author_id FROM posts WHERE id IN (SELECT value FROM json_each(?))",
                arguments: [list])
            {
                authors[row[0]] = row[1]
            }
            return authors
        }
    }

    public func userIDs(usernames: Set<String>) async throws -> [String: Int64] {
        guard !usernames.isEmpty else { return [:] }
        let list = String(decoding: try JSONEncoder().encode(usernames.sorted()), as: UTF8.self)
        return try await read { db in
            var ids: [String: Int64] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT username, id FROM users
                    WHERE username IN (SELECT value FROM json_each(?)) AND status = 'active'
                    """, arguments: [list])
            {
                ids[row[0]] = row[1]
            }
            return ids
        }
    }

    public func actions(of user: Int64) async throws -> UserActions {
        try await read { db in
            let likes = try Row.fetchAll(
                db,
                sql: """
                    SELECT l.post_id, p.author_id, l.created_at FROM likes l JOIN posts p ON p.id = l.post_id
                    WHERE l.user_id = ?
                    """, arguments: [user]
            ).map { UserActions.Like(post: $0[0], author: $0[1], at: Date(timeIntervalSince1970: $0[2])) }
            let comments = try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.commentColumns), p.author_id AS post_author FROM comments c
                    JOIN users u ON u.id = c.author_id JOIN posts p ON p.id = c.post_id WHERE c.author_id = ?
                    """, arguments: [user]
            ).map { (comment: Self.comment($0), postAuthor: $0["post_author"] as Int64) }
            let follows = try Row.fetchAll(
                db, sql: "SELECT followee_id, created_at FROM follows WHERE follower_id = ?", arguments: [user]
            ).map { UserActions.Follow(followee: $0[0], at: Date(timeIntervalSince1970: $0[1])) }
            let posts = try Row.fetchAll(
                db, sql: "SELECT id, caption, created_at FROM posts WHERE author_id = ?", arguments: [user]
            ).map { (id: $0[0] as Int64, caption: $0[1] as String, at: Date(timeIntervalSince1970: $0[2])) }
            return UserActions(likes: likes, comments: comments, follows: follows, posts: posts)
        }
    }
}

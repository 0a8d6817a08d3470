import Foundation
import GRDB
import MakestagramAPI
import MakestagramStore

extension SQLiteStore {
    /// Publishes, as the current write commits, the unread activity count of every user whose count it changed (the
    /// schema's triggers note them in `activity_touched`), and empties the note. Every write runs this, so it reads
    /// only the note (a join with `users` let the planner scan every user: 0.3 ms a write at 10,000 users).
    func publishTouchedActivity(_ db: Database) throws {
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT user_id, (SELECT activity_unread FROM users WHERE id = user_id) AS unread
                    FROM activity_touched
                    """))
        try db.cachedStatement(sql: "DELETE FROM activity_touched").execute()
        for row in rows {
            // A user deleted in this transaction has no count left to show.
            guard let unread: Int = row[1] else { continue }
            publishOnCommit(db, .activityChanged(user: row[0], unreadCount: unread))
        }
    }

    public func activity(userID: Int64, page: PageRequest) async throws -> PageResult<ActivityGroup> {
        try await read { db in
            let groups = try fetchPage(
                db,
                sql: { condition in
                    """
                    SELECT g.newest_id AS page_key, g.group_key, g.kind, g.size, g.unread, p.id, p.thumb_file
                    FROM activity_groups g LEFT JOIN posts p ON p.id = g.post_id
                    WHERE g.recipient_id = :user AND \(condition) ORDER BY g.newest_id DESC LIMIT :limit
                    """
                }, arguments: ["user": userID], key: "g.newest_id", descending: true, page: page,
                decode: { row in
                    (
                        key: row["group_key"] as String, kind: row["kind"] as String, size: row["size"] as Int,
                        unread: row["unread"] as Int, postID: row["id"] as Int64?, thumb: row["thumb_file"] as String?
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
                            thumb.map { ActivityPost(id: id, thumbnailURL: MediaPath.url(for: $0)) }
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
            try Int.fetchOne(db, sql: "SELECT activity_unread FROM users WHERE id = ?", arguments: [userID]) ?? 0
        }
    }

    public func markActivityRead(userID: Int64, through: Int64?) async throws -> Int {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE activity SET unread = 0 WHERE recipient_id = ? AND unread = 1 AND id <= ?
                    """, arguments: [userID, through ?? Int64.max])
            return try Int.fetchOne(db, sql: "SELECT activity_unread FROM users WHERE id = ?", arguments: [userID]) ?? 0
        }
    }
}

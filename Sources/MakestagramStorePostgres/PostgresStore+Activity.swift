import Foundation
import MakestagramAPI
import MakestagramStore
import PostgresNIO

extension PostgresStore {
    public func activity(userID: Int64, page: PageRequest) async throws -> PageResult<ActivityGroup> {
        try await read { [logger] connection in
            var sql = SQL(
                """
                SELECT g.group_key, g.kind, g.size, g.unread, p.id, p.thumb_file, pa.is_private, g.newest_id
                FROM activity_groups g LEFT JOIN posts p ON p.id = g.post_id LEFT JOIN users pa ON pa.id = p.author_id
                """)
            sql.append(" WHERE g.recipient_id = \(sql.bind(userID))")
            let groups = try await PostRows.page(
                connection, sql, key: "g.newest_id", descending: true, page: page, logger: logger
            ) { row in
                try row.decode((String, String, Int, Int, Int64?, String?, Bool?, Int64).self)
            }
            guard !groups.items.isEmpty else { return PageResult(items: [], nextKey: nil) }
            // The newest actors of every group on the page, in one statement.
            let actorRows = try await connection.query(
                """
                SELECT x.group_key, x.id, x.created_at, x.comment_id, x.text,
                  x.actor_id, x.username, x.display_name, x.avatar_file
                FROM unnest(\(groups.items.map(\.0))::text[]) AS k(group_key), LATERAL (
                  SELECT a.group_key, a.id, a.created_at, a.comment_id, c.text,
                    u.id AS actor_id, u.username, u.display_name, u.avatar_file
                  FROM activity a JOIN users u ON u.id = a.actor_id LEFT JOIN comments c ON c.id = a.comment_id
                  WHERE a.recipient_id = \(userID) AND a.group_key = k.group_key
                  ORDER BY a.id DESC LIMIT \(ActivityGroup.actorsShown)) x
                ORDER BY x.id DESC
                """, logger: logger
            ).collect()
            var actors: [String: [(id: Int64, at: Double, commentID: Int64?, text: String?, user: UserSummary)]] = [:]
            for row in actorRows {
                let (key, id, at, commentID, text, actorID, username, displayName, avatar) = try row.decode(
                    (String, Int64, Double, Int64?, String?, Int64, String, String, String?).self)
                let user = UserSummary(
                    id: actorID, username: username, displayName: displayName,
                    avatarURL: avatar.map(MediaPath.url(for:)))
                actors[key, default: []].append((id, at, commentID, text, user))
            }
            let items = groups.items.compactMap { group -> ActivityGroup? in
                let (key, kind, size, unread, postID, thumb, guarded, _) = group
                guard let rows = actors[key], let newest = rows.first, let kind = ActivityGroup.Kind(rawValue: kind)
                else { return nil }
                return ActivityGroup(
                    id: key, kind: kind, actors: rows.map(\.user), actorCount: size,
                    post: postID.flatMap { id in
                        thumb.map {
                            ActivityPost(
                                id: id,
                                thumbnailURL: guarded == true ? self.mediaSigning.url(for: $0) : MediaPath.url(for: $0))
                        }
                    },
                    comment: newest.commentID.flatMap { id in newest.text.map { ActivityComment(id: id, text: $0) } },
                    createdAt: Date(timeIntervalSince1970: newest.at), unread: unread > 0, latestId: newest.id)
            }
            return PageResult(items: items, nextKey: groups.nextKey, newestKey: items.first?.latestId)
        }
    }

    public func unreadActivityCount(userID: Int64) async throws -> Int {
        try await read { [logger] connection in
            try await connection.query("SELECT count FROM unread_activity WHERE user_id = \(userID)", logger: logger)
                .collect().first?.decode(Int.self) ?? 0
        }
    }

    public func markActivityRead(userID: Int64, through: Int64?) async throws -> Int {
        try await write { [logger] connection, changes in
            let read = try await connection.query(
                """
                UPDATE activity SET unread = 0
                WHERE recipient_id = \(userID) AND unread = 1 AND id <= \(through ?? Int64.max) RETURNING 1
                """, logger: logger
            ).collect()
            let unread =
                try await connection.query(
                    "SELECT count FROM unread_activity WHERE user_id = \(userID)", logger: logger
                ).collect().first?.decode(Int.self) ?? 0
            if !read.isEmpty { changes.publish(.activityChanged(user: userID, unreadCount: unread)) }
            return unread
        }
    }
}

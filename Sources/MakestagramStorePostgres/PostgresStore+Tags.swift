import Foundation
import MakestagramAPI
import MakestagramStore
import PostgresNIO

extension PostgresStore {
    /// Files a post under its caption's hashtags, replacing what it was filed under (inside the write's transaction).
    static func file(_ connection: PostgresConnection, postID: Int64, caption: String, logger: Logger) async throws {
        // Two statements: in one, the insert would still see the rows the delete removes.
        try await connection.query("DELETE FROM post_tags WHERE post_id = \(postID)", logger: logger)
        let tags = Hashtags.of(caption)
        guard !tags.isEmpty else { return }
        try await connection.query(
            "INSERT INTO post_tags (tag, post_id) SELECT unnest(\(tags)::text[]), \(postID) ON CONFLICT DO NOTHING",
            logger: logger)
    }

    public func posts(tag: String, viewer: Int64, page: PageRequest) async throws -> PageResult<Post> {
        try await read { [logger] connection in
            var sql = SQL("SELECT post_id, post_id FROM post_tags")
            sql.append(" WHERE tag = \(sql.bind(tag.lowercased()))")
            let ids = try await PostRows.page(
                connection, sql, key: "post_id", descending: true, page: page, logger: logger
            ) { row in try row.decode((Int64, Int64).self).0 }
            return try await self.posts(connection, page: ids, viewer: viewer, logger: logger)
        }
    }

    public func publicPosts(local: Bool, viewer: Int64, page: PageRequest) async throws -> PageResult<Post> {
        try await read { [logger] connection in
            var sql = SQL("SELECT p.id, p.id FROM posts p JOIN users u ON u.id = p.author_id")
            sql.append(" WHERE NOT u.is_private AND u.status = 'active'")
            if local { sql.append(" AND NOT EXISTS (SELECT 1 FROM remote_posts r WHERE r.post_id = p.id)") }
            let ids = try await PostRows.page(
                connection, sql, key: "p.id", descending: true, page: page, logger: logger
            ) { row in try row.decode((Int64, Int64).self).0 }
            return try await self.posts(connection, page: ids, viewer: viewer, logger: logger)
        }
    }

    /// The posts of a page of IDs, as `viewer` sees them, in the page's order (those the viewer may not see left
    /// out).
    private func posts(_ connection: PostgresConnection, page ids: PageResult<Int64>, viewer: Int64, logger: Logger)
        async throws -> PageResult<Post>
    {
        guard !ids.items.isEmpty else { return PageResult(items: [], nextKey: nil) }
        let posts = Dictionary(
            try await PostRows.posts(
                connection, ids: ids.items, viewer: viewer, hiding: try await hiddenNames(connection, for: viewer),
                signing: mediaSigning, logger: logger
            ).map { ($0.id, $0) },
            uniquingKeysWith: { first, _ in first })
        return PageResult(items: ids.items.compactMap { posts[$0] }, nextKey: ids.nextKey)
    }
}

import Foundation
import GRDB
import MakestagramAPI
import MakestagramStore

extension SQLiteStore {
    /// Files a post under its caption's hashtags, replacing what it was filed under.
    static func file(_ db: Database, postID: Int64, caption: String) throws {
        try db.cachedStatement(sql: "DELETE FROM post_tags WHERE post_id = ?").execute(arguments: [postID])
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO post_tags (tag, post_id) VALUES (?, ?)")
        for tag in Hashtags.of(caption) { try insert.execute(arguments: [tag, postID]) }
    }

    public func posts(tag: String, viewer: Int64, page: PageRequest) async throws -> PageResult<Post> {
        try await read { db in
            let ids = try fetchPage(
                db,
                sql: { condition in
                    """
                    SELECT post_id AS page_key FROM post_tags
                    WHERE tag = :tag AND \(condition) ORDER BY post_id DESC LIMIT :limit
                    """
                }, arguments: ["tag": tag.lowercased()], key: "post_id", descending: true, page: page,
                decode: { $0["page_key"] as Int64 })
            let posts = Dictionary(
                try PostQuery.posts(
                    db, ids: ids.items, viewer: viewer, hiding: hiddenNames(db, for: viewer), signing: mediaSigning
                ).map {
                    ($0.id, $0)
                },
                uniquingKeysWith: { first, _ in first })
            return PageResult(items: ids.items.compactMap { posts[$0] }, nextKey: ids.nextKey)
        }
    }

    public func publicPosts(local: Bool, viewer: Int64, page: PageRequest) async throws -> PageResult<Post> {
        try await read { db in
            let ids = try fetchPage(
                db,
                sql: { condition in
                    """
                    SELECT p.id AS page_key FROM posts p JOIN users u ON u.id = p.author_id
                    WHERE u.is_private = 0 AND u.status = 'active'
                      \(local ? "AND NOT EXISTS (SELECT 1 FROM remote_posts r WHERE r.post_id = p.id)" : "")
                      AND \(condition) ORDER BY p.id DESC LIMIT :limit
                    """
                }, arguments: [:], key: "p.id", descending: true, page: page,
                decode: { $0["page_key"] as Int64 })
            let posts = Dictionary(
                try PostQuery.posts(
                    db, ids: ids.items, viewer: viewer, hiding: hiddenNames(db, for: viewer), signing: mediaSigning
                ).map { ($0.id, $0) },
                uniquingKeysWith: { first, _ in first })
            return PageResult(items: ids.items.compactMap { posts[$0] }, nextKey: ids.nextKey)
        }
    }
}

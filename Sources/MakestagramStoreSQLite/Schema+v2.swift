import GRDB

extension Schema {
    /// Keeps each post's latest likers' usernames on the post row, so that reading a feed page needs no
    /// per-post subquery. Triggers maintain it in the same transaction as the like rows.
    static func v2(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE posts ADD COLUMN likers_preview TEXT NOT NULL DEFAULT '';
                UPDATE posts SET likers_preview = coalesce((SELECT group_concat(username, ' ') FROM (
                    SELECT u.username FROM likes l JOIN users u ON u.id = l.user_id
                    WHERE l.post_id = posts.id ORDER BY l.id DESC LIMIT 3)), '');
                DROP TRIGGER likes_insert;
                DROP TRIGGER likes_delete;
                CREATE TRIGGER likes_insert AFTER INSERT ON likes BEGIN
                  UPDATE posts SET like_count = like_count + 1, version = version + 1,
                    likers_preview = coalesce((SELECT group_concat(username, ' ') FROM (
                      SELECT u.username FROM likes l JOIN users u ON u.id = l.user_id
                      WHERE l.post_id = NEW.post_id ORDER BY l.id DESC LIMIT 3)), '')
                  WHERE id = NEW.post_id;
                END;
                CREATE TRIGGER likes_delete AFTER DELETE ON likes BEGIN
                  UPDATE posts SET like_count = like_count - 1, version = version + 1,
                    likers_preview = coalesce((SELECT group_concat(username, ' ') FROM (
                      SELECT u.username FROM likes l JOIN users u ON u.id = l.user_id
                      WHERE l.post_id = OLD.post_id ORDER BY l.id DESC LIMIT 3)), '')
                  WHERE id = OLD.post_id;
                END;
                """)
    }
}

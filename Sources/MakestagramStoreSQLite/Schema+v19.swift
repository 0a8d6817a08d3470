import GRDB

extension Schema {
    /// Mutes: a muted user's posts leave the muter's home timeline (their feed rows go, and new posts skip the
    /// muter), and their activity leaves the muter's list; nothing else changes. The fan-out triggers learn to skip
    /// a muter, on a new post and on a new follow.
    static func v19(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE mutes (
                  id INTEGER PRIMARY KEY,
                  muter_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  muted_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  created_at REAL NOT NULL,
                  UNIQUE (muter_id, muted_id)
                );
                CREATE INDEX mutes_muted ON mutes(muted_id);
                DROP TRIGGER posts_insert;
                CREATE TRIGGER posts_insert AFTER INSERT ON posts BEGIN
                  UPDATE users SET post_count = post_count + 1 WHERE id = NEW.author_id;
                  INSERT INTO feed (user_id, post_id) VALUES (NEW.author_id, NEW.id);
                  INSERT INTO feed (user_id, post_id)
                    SELECT follower_id, NEW.id FROM follows WHERE followee_id = NEW.author_id
                      AND follower_id NOT IN (SELECT muter_id FROM mutes WHERE muted_id = NEW.author_id);
                END;
                DROP TRIGGER follows_insert;
                CREATE TRIGGER follows_insert AFTER INSERT ON follows BEGIN
                  UPDATE users SET following_count = following_count + 1 WHERE id = NEW.follower_id;
                  UPDATE users SET follower_count = follower_count + 1 WHERE id = NEW.followee_id;
                  INSERT OR IGNORE INTO feed (user_id, post_id)
                    SELECT NEW.follower_id, id FROM posts WHERE author_id = NEW.followee_id
                      AND NOT EXISTS (
                        SELECT 1 FROM mutes WHERE muter_id = NEW.follower_id AND muted_id = NEW.followee_id);
                END;
                """)
    }
}

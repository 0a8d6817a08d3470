import GRDB

extension Schema {
    /// Hidden like counts: a switch per post, and each user's default for their new posts.
    static func v7(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE posts ADD COLUMN hide_like_count INTEGER NOT NULL DEFAULT 0 CHECK (hide_like_count IN (0, 1));
                ALTER TABLE users ADD COLUMN hide_like_counts INTEGER NOT NULL DEFAULT 0
                  CHECK (hide_like_counts IN (0, 1));
                """)
    }
}

import GRDB

extension Schema {
    /// Blocks of other servers: the moderators' (`domain_blocks`, for everyone, logged with the domain) and each
    /// user's own (`user_domain_blocks`), whose blocks of that server's people are marked with it (`blocks.domain`),
    /// so that lifting it lifts those and no block made one by one.
    static func v27(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE domain_blocks (
                  domain TEXT PRIMARY KEY,
                  severity TEXT NOT NULL CHECK (severity IN ('suspend', 'limit')),
                  reason TEXT NOT NULL DEFAULT '',
                  created_at REAL NOT NULL
                ) WITHOUT ROWID;
                ALTER TABLE moderation_log ADD COLUMN domain TEXT;
                CREATE TABLE user_domain_blocks (
                  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  domain TEXT NOT NULL,
                  created_at REAL NOT NULL,
                  PRIMARY KEY (user_id, domain)
                ) WITHOUT ROWID;
                CREATE INDEX user_domain_blocks_domain ON user_domain_blocks(domain);
                ALTER TABLE blocks ADD COLUMN domain TEXT;
                """)
    }
}

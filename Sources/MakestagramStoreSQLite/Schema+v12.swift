import GRDB

extension Schema {
    /// Account status and moderation: `users.status` (``AccountStatus``: only active users are seen), moderators,
    /// reports a moderator handled, the moderation log, and the usernames of deleted accounts, reserved for a while.
    static func v12(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE users ADD COLUMN status TEXT NOT NULL DEFAULT 'active'
                  CHECK (status IN ('active', 'suspended', 'deleting'));
                ALTER TABLE users ADD COLUMN is_moderator INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE users ADD COLUMN status_changed_at REAL;
                -- Almost always empty: reads skip the posts of the users it lists.
                CREATE INDEX users_inactive ON users(id) WHERE status <> 'active';

                ALTER TABLE reports ADD COLUMN handled_at REAL;
                CREATE INDEX reports_waiting ON reports(post_id, id) WHERE handled_at IS NULL;
                CREATE TRIGGER reports_delete AFTER DELETE ON reports BEGIN
                  UPDATE posts SET report_count = report_count - 1 WHERE id = OLD.post_id;
                END;

                CREATE TABLE moderation_log (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  created_at REAL NOT NULL,
                  moderator_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
                  moderator TEXT,
                  action TEXT NOT NULL,
                  user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
                  username TEXT,
                  post_id INTEGER,
                  reason TEXT NOT NULL DEFAULT '' CHECK (length(reason) <= 500)
                );

                CREATE TABLE reserved_usernames (
                  username TEXT PRIMARY KEY COLLATE NOCASE,
                  until REAL NOT NULL
                ) WITHOUT ROWID;
                """)
    }
}

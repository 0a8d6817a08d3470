import GRDB

extension Schema {
    /// Blocks: a blocker and the one they block no longer see, follow or reach each other (``Visibility``). Both
    /// directions are looked up on every read that lists people or posts: the unique index serves one, `blocks_blocked`
    /// the other.
    static func v20(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE blocks (
                  id INTEGER PRIMARY KEY,
                  blocker_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  blocked_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  created_at REAL NOT NULL,
                  UNIQUE (blocker_id, blocked_id)
                );
                CREATE INDEX blocks_blocked ON blocks(blocked_id, blocker_id);
                """)
    }
}

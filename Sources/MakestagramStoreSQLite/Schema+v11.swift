import GRDB

extension Schema {
    /// What a user's list of sessions shows: when each was last used, and by what client from where.
    static func v11(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE sessions ADD COLUMN last_used_at REAL;
                UPDATE sessions SET last_used_at = created_at;
                ALTER TABLE sessions ADD COLUMN user_agent TEXT;
                ALTER TABLE sessions ADD COLUMN address TEXT;
                """)
    }
}

import GRDB

extension Schema {
    /// Tokens an app holds for itself, without a user (OAuth's client-credentials grant): they reach only what needs
    /// no user.
    static func v14(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE oauth_app_tokens (
                  token_hash BLOB PRIMARY KEY CHECK (length(token_hash) = 32),
                  app_id INTEGER NOT NULL REFERENCES oauth_apps(id) ON DELETE CASCADE,
                  scopes TEXT NOT NULL,
                  created_at REAL NOT NULL
                ) WITHOUT ROWID;
                """)
    }
}

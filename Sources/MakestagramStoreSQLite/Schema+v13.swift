import GRDB

extension Schema {
    /// Third-party apps (OAuth 2): registered apps, authorization codes, and sessions that belong to an app with the
    /// scopes granted to it (`app_id` and `scopes` NULL for the first-party clients' sessions).
    static func v13(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE oauth_apps (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  client_id TEXT NOT NULL UNIQUE,
                  secret_hash BLOB NOT NULL CHECK (length(secret_hash) = 32),
                  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
                  website TEXT CHECK (length(website) <= 500),
                  redirect_uris TEXT NOT NULL CHECK (length(redirect_uris) <= 4000),
                  scopes TEXT NOT NULL CHECK (length(scopes) <= 1000),
                  created_at REAL NOT NULL
                );
                CREATE TABLE oauth_codes (
                  code_hash BLOB PRIMARY KEY CHECK (length(code_hash) = 32),
                  app_id INTEGER NOT NULL REFERENCES oauth_apps(id) ON DELETE CASCADE,
                  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  redirect_uri TEXT NOT NULL,
                  scopes TEXT NOT NULL,
                  code_challenge TEXT,
                  expires_at REAL NOT NULL
                ) WITHOUT ROWID;
                ALTER TABLE sessions ADD COLUMN app_id INTEGER REFERENCES oauth_apps(id) ON DELETE CASCADE;
                ALTER TABLE sessions ADD COLUMN scopes TEXT;
                CREATE INDEX sessions_app ON sessions(app_id, user_id) WHERE app_id IS NOT NULL;

                -- Photos uploaded ahead of the post that will show them (Mastodon's media attachments).
                CREATE TABLE media_uploads (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  width INTEGER NOT NULL, height INTEGER NOT NULL,
                  full_file TEXT NOT NULL, full_width INTEGER NOT NULL, full_height INTEGER NOT NULL,
                  thumb_file TEXT NOT NULL, thumb_width INTEGER NOT NULL, thumb_height INTEGER NOT NULL,
                  variants TEXT,
                  created_at REAL NOT NULL
                );
                CREATE INDEX media_uploads_user ON media_uploads(user_id);
                """)
    }
}

import GRDB

extension Schema {
    /// The photos of posts from other servers, each with where it was fetched from and the files the photo pipeline
    /// made of it (in the order it makes them), so that an operator's budget can remove them, oldest first, and they
    /// can be fetched again when asked for. They go with their post.
    static func v29(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE remote_media (
                  id INTEGER PRIMARY KEY,
                  post_id INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
                  source TEXT NOT NULL,
                  files TEXT NOT NULL,
                  kept_at REAL NOT NULL,
                  evicted INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX remote_media_post ON remote_media(post_id);
                CREATE INDEX remote_media_kept ON remote_media(kept_at) WHERE evicted = 0;
                CREATE TABLE remote_media_files (
                  file TEXT PRIMARY KEY,
                  media_id INTEGER NOT NULL REFERENCES remote_media(id) ON DELETE CASCADE
                ) WITHOUT ROWID;
                CREATE INDEX remote_media_files_media ON remote_media_files(media_id);
                """)
    }
}

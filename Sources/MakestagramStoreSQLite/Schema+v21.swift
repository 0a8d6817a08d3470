import GRDB

extension Schema {
    /// Private accounts and follow requests: a private account's posts are read only by its owner and the followers
    /// it accepted (``Visibility``); a follow of it waits in `follow_requests` until the owner answers, and shows in
    /// their activity as a `follow_request` (the activity table is rebuilt for the kind its check allows, with the
    /// indexes and triggers of v16).
    static func v21(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE users ADD COLUMN is_private INTEGER NOT NULL DEFAULT 0 CHECK (is_private IN (0, 1));
                CREATE TABLE follow_requests (
                  id INTEGER PRIMARY KEY,
                  requester_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  target_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  created_at REAL NOT NULL,
                  UNIQUE (requester_id, target_id)
                );
                CREATE INDEX follow_requests_target ON follow_requests(target_id, id);

                CREATE TABLE activity_kinds (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  recipient_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  actor_id INTEGER NOT NULL,
                  kind TEXT NOT NULL CHECK (kind IN ('like', 'comment', 'follow', 'mention', 'follow_request')),
                  post_id INTEGER,
                  comment_id INTEGER,
                  source TEXT NOT NULL UNIQUE,
                  group_key TEXT NOT NULL,
                  unread INTEGER NOT NULL DEFAULT 1 CHECK (unread IN (0, 1)),
                  created_at REAL NOT NULL,
                  CHECK (recipient_id <> actor_id)
                );
                INSERT INTO activity_kinds SELECT * FROM activity;
                DROP TABLE activity;
                ALTER TABLE activity_kinds RENAME TO activity;
                \(activityIndexesAndTriggers)
                """)
    }
}

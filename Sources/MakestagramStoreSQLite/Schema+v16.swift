import GRDB

extension Schema {
    /// One change log at the centre, as PostgreSQL has: every write appends its change to `changes` in its own
    /// transaction (``SQLiteStore/try publishOnCommit(_:_:)``), and consumers that write (activity) read it after commit
    /// from a position kept in `change_consumers`, moved in the same transaction as what they write.
    ///
    /// Activity is no longer written by triggers on likes, comments and follows: the activity consumer derives it in
    /// Swift (``ActivityRules``, in MakestagramCore), once for both stores. So an activity row is identified by what
    /// caused it (`source`), not by a foreign key to it (the like may be gone before its change is applied), and a
    /// mention is a kind. The triggers that keep each group's size and each user's unread count with the rows stay:
    /// a count and the rows it counts. Unread counts are published by whoever changes them (the consumer, marking
    /// read), so `activity_touched` goes.
    static func v16(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE changes (
                  seq INTEGER PRIMARY KEY AUTOINCREMENT,
                  payload TEXT NOT NULL,
                  created_at REAL NOT NULL
                );
                CREATE TABLE change_consumers (name TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID;
                -- What is in the activity table now was derived from every change so far.
                INSERT INTO change_consumers (name, position) VALUES ('activity', 0);

                DROP TRIGGER likes_activity;
                DROP TRIGGER comments_activity;
                DROP TRIGGER follows_activity;
                DROP TRIGGER activity_insert;
                DROP TRIGGER activity_delete;
                DROP TRIGGER activity_read;
                DROP TABLE activity_touched;

                CREATE TABLE activity_by_source (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  recipient_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  actor_id INTEGER NOT NULL,
                  kind TEXT NOT NULL CHECK (kind IN ('like', 'comment', 'follow', 'mention')),
                  post_id INTEGER,
                  comment_id INTEGER,
                  source TEXT NOT NULL UNIQUE,
                  group_key TEXT NOT NULL,
                  unread INTEGER NOT NULL DEFAULT 1 CHECK (unread IN (0, 1)),
                  created_at REAL NOT NULL,
                  CHECK (recipient_id <> actor_id)
                );
                INSERT INTO activity_by_source (
                  id, recipient_id, actor_id, kind, post_id, comment_id, source, group_key, unread, created_at)
                  SELECT id, recipient_id, actor_id, kind, post_id, comment_id,
                    CASE kind WHEN 'like' THEN 'like:' || post_id || ':' || actor_id
                      WHEN 'comment' THEN 'comment:' || comment_id
                      ELSE 'follow:' || actor_id || ':' || recipient_id END,
                    group_key, unread, created_at
                  FROM activity;
                DROP TABLE activity;
                ALTER TABLE activity_by_source RENAME TO activity;
                \(activityIndexesAndTriggers)
                """)
    }

    /// The activity table's indexes and the triggers that keep each group's size and each user's unread count with
    /// its rows (v16; v21 rebuilds the table and creates them again).
    static let activityIndexesAndTriggers = """
        CREATE INDEX activity_group ON activity(recipient_id, group_key, id);
        CREATE INDEX activity_unread ON activity(recipient_id, id) WHERE unread = 1;
        CREATE INDEX activity_actor ON activity(actor_id);
        CREATE INDEX activity_post ON activity(post_id) WHERE post_id IS NOT NULL;
        CREATE INDEX activity_comment ON activity(comment_id) WHERE comment_id IS NOT NULL;

        CREATE TRIGGER activity_insert AFTER INSERT ON activity BEGIN
          INSERT INTO activity_groups (recipient_id, group_key, kind, post_id, newest_id, size, unread)
            VALUES (NEW.recipient_id, NEW.group_key, NEW.kind, NEW.post_id, NEW.id, 1, NEW.unread)
            ON CONFLICT (recipient_id, group_key) DO UPDATE SET
              newest_id = max(newest_id, excluded.newest_id), size = size + 1, unread = unread + excluded.unread;
          UPDATE users SET activity_unread = activity_unread + NEW.unread WHERE id = NEW.recipient_id;
        END;
        CREATE TRIGGER activity_delete AFTER DELETE ON activity BEGIN
          UPDATE activity_groups SET size = size - 1, unread = unread - OLD.unread,
            newest_id = coalesce((SELECT max(id) FROM activity
              WHERE recipient_id = OLD.recipient_id AND group_key = OLD.group_key), newest_id)
            WHERE recipient_id = OLD.recipient_id AND group_key = OLD.group_key;
          DELETE FROM activity_groups
            WHERE recipient_id = OLD.recipient_id AND group_key = OLD.group_key AND size = 0;
          UPDATE users SET activity_unread = activity_unread - OLD.unread WHERE id = OLD.recipient_id;
        END;
        CREATE TRIGGER activity_read AFTER UPDATE OF unread ON activity
          WHEN OLD.unread = 1 AND NEW.unread = 0 BEGIN
          UPDATE activity_groups SET unread = unread - 1
            WHERE recipient_id = OLD.recipient_id AND group_key = OLD.group_key;
          UPDATE users SET activity_unread = activity_unread - 1 WHERE id = OLD.recipient_id;
        END;
        """
}

import GRDB

extension Schema {
    /// Each user's unread activity count moves from their row in `users` to a narrow table of its own, holding a row
    /// only while the count is above zero.
    ///
    /// The count changes with every like, comment, follow and mention a person receives, and a `users` row is wide
    /// (names, password hash, bio, files, counts): during like toggles, the recipients' rows were the B-tree with the
    /// most pages in each commit's log, 35 of about 167 frames, ahead of the posts and the likes. A row of
    /// `unread_activity` is a dozen bytes, so the same counts fit in a few pages (Benchmarks/HISTORY.md, "unread counts
    /// in a narrow table"). The triggers that keep the count with the activity rows are created again to write
    /// there; groups are kept as before (v16).
    static func v33(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE unread_activity (
                  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                  count INTEGER NOT NULL CHECK (count > 0)
                );
                INSERT INTO unread_activity (user_id, count)
                  SELECT id, activity_unread FROM users WHERE activity_unread > 0;

                DROP TRIGGER activity_insert;
                DROP TRIGGER activity_delete;
                DROP TRIGGER activity_read;
                ALTER TABLE users DROP COLUMN activity_unread;

                CREATE TRIGGER activity_insert AFTER INSERT ON activity BEGIN
                  INSERT INTO activity_groups (recipient_id, group_key, kind, post_id, newest_id, size, unread)
                    VALUES (NEW.recipient_id, NEW.group_key, NEW.kind, NEW.post_id, NEW.id, 1, NEW.unread)
                    ON CONFLICT (recipient_id, group_key) DO UPDATE SET
                      newest_id = max(newest_id, excluded.newest_id), size = size + 1, unread = unread + excluded.unread;
                  INSERT INTO unread_activity (user_id, count) SELECT NEW.recipient_id, 1 WHERE NEW.unread = 1
                    ON CONFLICT (user_id) DO UPDATE SET count = count + 1;
                END;
                CREATE TRIGGER activity_delete AFTER DELETE ON activity BEGIN
                  UPDATE activity_groups SET size = size - 1, unread = unread - OLD.unread,
                    newest_id = coalesce((SELECT max(id) FROM activity
                      WHERE recipient_id = OLD.recipient_id AND group_key = OLD.group_key), newest_id)
                    WHERE recipient_id = OLD.recipient_id AND group_key = OLD.group_key;
                  DELETE FROM activity_groups
                    WHERE recipient_id = OLD.recipient_id AND group_key = OLD.group_key AND size = 0;
                  DELETE FROM unread_activity WHERE OLD.unread = 1 AND user_id = OLD.recipient_id AND count = 1;
                  UPDATE unread_activity SET count = count - 1 WHERE OLD.unread = 1 AND user_id = OLD.recipient_id;
                END;
                CREATE TRIGGER activity_read AFTER UPDATE OF unread ON activity
                  WHEN OLD.unread = 1 AND NEW.unread = 0 BEGIN
                  UPDATE activity_groups SET unread = unread - 1
                    WHERE recipient_id = OLD.recipient_id AND group_key = OLD.group_key;
                  DELETE FROM unread_activity WHERE user_id = OLD.recipient_id AND count = 1;
                  UPDATE unread_activity SET count = count - 1 WHERE user_id = OLD.recipient_id;
                END;
                """)
    }
}

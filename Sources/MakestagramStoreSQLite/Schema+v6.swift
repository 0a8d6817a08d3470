import GRDB

extension Schema {
    /// Activity: what others did to a user (liked their post, commented on it, started following them), kept by
    /// triggers in the same transaction as the like, comment or follow itself.
    ///
    /// Each `activity` row points at the row that caused it (`like_id`, `comment_id`, `follow_id`) with ON DELETE
    /// CASCADE, so an unlike, a deleted comment or post, an unfollow or a deleted user withdraws it by construction:
    /// a deleted post or user takes its likes, comments and follows with it, and they take their activity. So
    /// `actor_id` and `post_id` need neither a foreign key nor an index of their own; every index costs each like a
    /// page write, and a like is the hottest write (Benchmarks/HISTORY.md). The source keys' unique indexes are
    /// partial, holding only the rows of their kind.
    /// Rows are grouped as people read them (`group_key`): the likes of one post on one day ("bob and 3 others liked
    /// your photo"), the follows of one day, each comment alone. `activity_groups` holds each group's newest row,
    /// size and unread count, so a page of groups is one index range; `users.activity_unread` counts the unread rows.
    /// Every change to that count marks the user in `activity_touched`, which the writer empties before it commits
    /// to publish the new count (``SQLiteStore/write(_:)``): no write path can change an unread count silently.
    static func v6(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE users ADD COLUMN activity_unread INTEGER NOT NULL DEFAULT 0 CHECK (activity_unread >= 0);

                CREATE TABLE activity (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  recipient_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  actor_id INTEGER NOT NULL,
                  kind TEXT NOT NULL CHECK (kind IN ('like', 'comment', 'follow')),
                  post_id INTEGER,
                  like_id INTEGER REFERENCES likes(id) ON DELETE CASCADE,
                  comment_id INTEGER REFERENCES comments(id) ON DELETE CASCADE,
                  follow_id INTEGER REFERENCES follows(id) ON DELETE CASCADE,
                  group_key TEXT NOT NULL,
                  unread INTEGER NOT NULL DEFAULT 1 CHECK (unread IN (0, 1)),
                  created_at REAL NOT NULL,
                  CHECK (recipient_id <> actor_id)
                );
                CREATE INDEX activity_group ON activity(recipient_id, group_key, id);
                CREATE INDEX activity_unread ON activity(recipient_id, id) WHERE unread = 1;
                CREATE UNIQUE INDEX activity_like ON activity(like_id) WHERE like_id IS NOT NULL;
                CREATE UNIQUE INDEX activity_comment ON activity(comment_id) WHERE comment_id IS NOT NULL;
                CREATE UNIQUE INDEX activity_follow ON activity(follow_id) WHERE follow_id IS NOT NULL;

                CREATE TABLE activity_groups (
                  recipient_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  group_key TEXT NOT NULL,
                  kind TEXT NOT NULL,
                  post_id INTEGER,
                  newest_id INTEGER NOT NULL,
                  size INTEGER NOT NULL CHECK (size >= 0),
                  unread INTEGER NOT NULL CHECK (unread >= 0),
                  PRIMARY KEY (recipient_id, group_key)
                ) WITHOUT ROWID;
                CREATE INDEX activity_groups_newest ON activity_groups(recipient_id, newest_id);

                CREATE TABLE activity_touched (user_id INTEGER PRIMARY KEY) WITHOUT ROWID;

                CREATE TRIGGER likes_activity AFTER INSERT ON likes BEGIN
                  INSERT INTO activity (recipient_id, actor_id, kind, post_id, like_id, group_key, created_at)
                    SELECT author_id, NEW.user_id, 'like', NEW.post_id, NEW.id,
                      'like:' || NEW.post_id || ':' || CAST(NEW.created_at / 86400 AS INTEGER), NEW.created_at
                    FROM posts WHERE id = NEW.post_id AND author_id <> NEW.user_id;
                END;
                CREATE TRIGGER comments_activity AFTER INSERT ON comments BEGIN
                  INSERT INTO activity (recipient_id, actor_id, kind, post_id, comment_id, group_key, created_at)
                    SELECT author_id, NEW.author_id, 'comment', NEW.post_id, NEW.id, 'comment:' || NEW.id, NEW.created_at
                    FROM posts WHERE id = NEW.post_id AND author_id <> NEW.author_id;
                END;
                CREATE TRIGGER follows_activity AFTER INSERT ON follows BEGIN
                  INSERT INTO activity (recipient_id, actor_id, kind, follow_id, group_key, created_at)
                    VALUES (NEW.followee_id, NEW.follower_id, 'follow', NEW.id,
                      'follow:' || CAST(NEW.created_at / 86400 AS INTEGER), NEW.created_at);
                END;

                CREATE TRIGGER activity_insert AFTER INSERT ON activity BEGIN
                  INSERT INTO activity_groups (recipient_id, group_key, kind, post_id, newest_id, size, unread)
                    VALUES (NEW.recipient_id, NEW.group_key, NEW.kind, NEW.post_id, NEW.id, 1, NEW.unread)
                    ON CONFLICT (recipient_id, group_key) DO UPDATE SET
                      newest_id = max(newest_id, excluded.newest_id), size = size + 1, unread = unread + excluded.unread;
                  UPDATE users SET activity_unread = activity_unread + NEW.unread WHERE id = NEW.recipient_id;
                  INSERT OR IGNORE INTO activity_touched (user_id) VALUES (NEW.recipient_id);
                END;
                CREATE TRIGGER activity_delete AFTER DELETE ON activity BEGIN
                  UPDATE activity_groups SET size = size - 1, unread = unread - OLD.unread,
                    newest_id = coalesce((SELECT max(id) FROM activity
                      WHERE recipient_id = OLD.recipient_id AND group_key = OLD.group_key), newest_id)
                    WHERE recipient_id = OLD.recipient_id AND group_key = OLD.group_key;
                  DELETE FROM activity_groups
                    WHERE recipient_id = OLD.recipient_id AND group_key = OLD.group_key AND size = 0;
                  UPDATE users SET activity_unread = activity_unread - OLD.unread WHERE id = OLD.recipient_id;
                  INSERT OR IGNORE INTO activity_touched (user_id) VALUES (OLD.recipient_id);
                END;
                CREATE TRIGGER activity_read AFTER UPDATE OF unread ON activity
                  WHEN OLD.unread = 1 AND NEW.unread = 0 BEGIN
                  UPDATE activity_groups SET unread = unread - 1
                    WHERE recipient_id = OLD.recipient_id AND group_key = OLD.group_key;
                  UPDATE users SET activity_unread = activity_unread - 1 WHERE id = OLD.recipient_id;
                  INSERT OR IGNORE INTO activity_touched (user_id) VALUES (OLD.recipient_id);
                END;
                """)
    }
}

import GRDB

/// The schema. Constraints and counts live here, in SQLite, so that no code path can get them wrong:
/// triggers keep every counter and the fan-out `feed` table in the same transaction as the rows they reflect.
enum Schema {
    static func v1(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE users (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  username TEXT NOT NULL UNIQUE COLLATE NOCASE
                    CHECK (length(username) BETWEEN 3 AND 30 AND username NOT GLOB '*[^a-z0-9_.]*'),
                  display_name TEXT NOT NULL CHECK (length(display_name) BETWEEN 1 AND 50),
                  password_hash TEXT NOT NULL,
                  avatar_file TEXT,
                  post_count INTEGER NOT NULL DEFAULT 0 CHECK (post_count >= 0),
                  follower_count INTEGER NOT NULL DEFAULT 0 CHECK (follower_count >= 0),
                  following_count INTEGER NOT NULL DEFAULT 0 CHECK (following_count >= 0),
                  created_at REAL NOT NULL
                );
                CREATE TABLE sessions (
                  token_hash BLOB PRIMARY KEY CHECK (length(token_hash) = 32),
                  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  created_at REAL NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX sessions_user ON sessions(user_id);

                CREATE TABLE follows (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  follower_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  followee_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  created_at REAL NOT NULL,
                  UNIQUE (follower_id, followee_id),
                  CHECK (follower_id <> followee_id)
                );
                CREATE INDEX follows_followee ON follows(followee_id, id);
                CREATE INDEX follows_follower ON follows(follower_id, id);

                CREATE TABLE posts (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  author_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  caption TEXT NOT NULL CHECK (length(caption) <= 2200),
                  width INTEGER NOT NULL CHECK (width > 0),
                  height INTEGER NOT NULL CHECK (height > 0),
                  full_file TEXT NOT NULL UNIQUE,
                  full_width INTEGER NOT NULL,
                  full_height INTEGER NOT NULL,
                  thumb_file TEXT NOT NULL UNIQUE,
                  thumb_width INTEGER NOT NULL,
                  thumb_height INTEGER NOT NULL,
                  like_count INTEGER NOT NULL DEFAULT 0 CHECK (like_count >= 0),
                  comment_count INTEGER NOT NULL DEFAULT 0 CHECK (comment_count >= 0),
                  report_count INTEGER NOT NULL DEFAULT 0 CHECK (report_count >= 0),
                  version INTEGER NOT NULL DEFAULT 1,
                  created_at REAL NOT NULL
                );
                CREATE INDEX posts_author ON posts(author_id, id);

                -- The home timeline, fanned out on write: one row per (reader, post).
                CREATE TABLE feed (
                  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  post_id INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
                  PRIMARY KEY (user_id, post_id)
                ) WITHOUT ROWID;
                CREATE INDEX feed_post ON feed(post_id);

                CREATE TABLE likes (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  post_id INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
                  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  created_at REAL NOT NULL,
                  UNIQUE (post_id, user_id)
                );
                CREATE INDEX likes_post ON likes(post_id, id);
                CREATE INDEX likes_user ON likes(user_id);

                CREATE TABLE comments (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  post_id INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
                  author_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  text TEXT NOT NULL CHECK (length(text) BETWEEN 1 AND 2200),
                  created_at REAL NOT NULL
                );
                CREATE INDEX comments_post ON comments(post_id, id);
                CREATE INDEX comments_author ON comments(author_id);

                CREATE TABLE reports (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  post_id INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
                  reporter_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  reason TEXT NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
                  created_at REAL NOT NULL,
                  UNIQUE (post_id, reporter_id)
                );
                CREATE INDEX reports_reporter ON reports(reporter_id);

                CREATE TRIGGER likes_insert AFTER INSERT ON likes BEGIN
                  UPDATE posts SET like_count = like_count + 1, version = version + 1 WHERE id = NEW.post_id;
                END;
                CREATE TRIGGER likes_delete AFTER DELETE ON likes BEGIN
                  UPDATE posts SET like_count = like_count - 1, version = version + 1 WHERE id = OLD.post_id;
                END;
                CREATE TRIGGER comments_insert AFTER INSERT ON comments BEGIN
                  UPDATE posts SET comment_count = comment_count + 1, version = version + 1 WHERE id = NEW.post_id;
                END;
                CREATE TRIGGER comments_delete AFTER DELETE ON comments BEGIN
                  UPDATE posts SET comment_count = comment_count - 1, version = version + 1 WHERE id = OLD.post_id;
                END;
                CREATE TRIGGER reports_insert AFTER INSERT ON reports BEGIN
                  UPDATE posts SET report_count = report_count + 1 WHERE id = NEW.post_id;
                END;
                CREATE TRIGGER posts_insert AFTER INSERT ON posts BEGIN
                  UPDATE users SET post_count = post_count + 1 WHERE id = NEW.author_id;
                  INSERT INTO feed (user_id, post_id) VALUES (NEW.author_id, NEW.id);
                  INSERT INTO feed (user_id, post_id)
                    SELECT follower_id, NEW.id FROM follows WHERE followee_id = NEW.author_id;
                END;
                CREATE TRIGGER posts_delete AFTER DELETE ON posts BEGIN
                  UPDATE users SET post_count = post_count - 1 WHERE id = OLD.author_id;
                END;
                CREATE TRIGGER follows_insert AFTER INSERT ON follows BEGIN
                  UPDATE users SET following_count = following_count + 1 WHERE id = NEW.follower_id;
                  UPDATE users SET follower_count = follower_count + 1 WHERE id = NEW.followee_id;
                  INSERT OR IGNORE INTO feed (user_id, post_id)
                    SELECT NEW.follower_id, id FROM posts WHERE author_id = NEW.followee_id;
                END;
                CREATE TRIGGER follows_delete AFTER DELETE ON follows BEGIN
                  UPDATE users SET following_count = following_count - 1 WHERE id = OLD.follower_id;
                  UPDATE users SET follower_count = follower_count - 1 WHERE id = OLD.followee_id;
                  DELETE FROM feed WHERE user_id = OLD.follower_id
                    AND post_id IN (SELECT id FROM posts WHERE author_id = OLD.followee_id);
                END;
                """)
    }
}

import GRDB
import MakestagramStore

extension Schema {
    /// People search and suggestions: each user's search key (``PeopleSearch``) under an FTS5 trigram index that
    /// triggers keep in step with `users`, and users by follower count for "popular" suggestions. Existing users get
    /// their keys here; users written by other tools get theirs when the store opens (``SQLiteStore/fillSearchKeys``).
    static func v9(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE users ADD COLUMN search_key TEXT;
                CREATE VIRTUAL TABLE users_search USING fts5(
                  search_key, content='users', content_rowid='id', tokenize='trigram');
                CREATE TRIGGER users_search_insert AFTER INSERT ON users BEGIN
                  INSERT INTO users_search (rowid, search_key) VALUES (NEW.id, NEW.search_key);
                END;
                CREATE TRIGGER users_search_update AFTER UPDATE OF search_key ON users BEGIN
                  INSERT INTO users_search (users_search, rowid, search_key) VALUES ('delete', OLD.id, OLD.search_key);
                  INSERT INTO users_search (rowid, search_key) VALUES (NEW.id, NEW.search_key);
                END;
                CREATE TRIGGER users_search_delete AFTER DELETE ON users BEGIN
                  INSERT INTO users_search (users_search, rowid, search_key) VALUES ('delete', OLD.id, OLD.search_key);
                END;
                CREATE INDEX users_popular ON users(follower_count DESC, id);
                """)
        try SQLiteStore.fillSearchKeys(db)
    }
}

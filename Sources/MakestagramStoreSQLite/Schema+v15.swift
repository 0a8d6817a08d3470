import GRDB

extension Schema {
    /// People search by two letters anywhere in a name ("ob" finds bob): every pair of neighbouring characters of
    /// each user's search key (``PeopleSearch``) in `user_bigrams`, which triggers keep in step with `users.search_key`
    /// as the trigram index is kept. A pair across the username and the name (around the line feed) is left out.
    /// `search_positions` (1 to 100, more than a key's 81 characters) stands in for a loop, which triggers cannot
    /// write. No index by user: a changed or deleted key takes its pairs out by their own keys, so the table costs
    /// one B-tree (about 21 MB at 100,000 users, Benchmarks/HISTORY.md, "People search by two letters").
    static func v15(_ db: Database) throws {
        let positions = (1...100).map { "(\($0))" }.joined(separator: ", ")
        let pairs = { (key: String) in
            """
            SELECT substr(\(key), p.n, 2) AS gram FROM search_positions p
            WHERE p.n < length(\(key)) AND instr(substr(\(key), p.n, 2), char(10)) = 0
            """
        }
        try db.execute(
            sql: """
                CREATE TABLE search_positions (n INTEGER PRIMARY KEY);
                INSERT INTO search_positions (n) VALUES \(positions);
                CREATE TABLE user_bigrams (
                  gram TEXT NOT NULL,
                  user_id INTEGER NOT NULL,
                  PRIMARY KEY (gram, user_id)
                ) WITHOUT ROWID;
                CREATE TRIGGER users_bigrams_insert AFTER INSERT ON users WHEN NEW.search_key IS NOT NULL BEGIN
                  INSERT OR IGNORE INTO user_bigrams (gram, user_id) SELECT gram, NEW.id FROM (\(pairs("NEW.search_key")));
                END;
                CREATE TRIGGER users_bigrams_update AFTER UPDATE OF search_key ON users BEGIN
                  DELETE FROM user_bigrams
                    WHERE user_id = OLD.id AND gram IN (SELECT gram FROM (\(pairs("OLD.search_key"))));
                  INSERT OR IGNORE INTO user_bigrams (gram, user_id) SELECT gram, NEW.id FROM (\(pairs("NEW.search_key")));
                END;
                CREATE TRIGGER users_bigrams_delete AFTER DELETE ON users BEGIN
                  DELETE FROM user_bigrams
                    WHERE user_id = OLD.id AND gram IN (SELECT gram FROM (\(pairs("OLD.search_key"))));
                END;
                INSERT OR IGNORE INTO user_bigrams (gram, user_id)
                  SELECT substr(u.search_key, p.n, 2), u.id FROM users u, search_positions p
                  WHERE u.search_key IS NOT NULL AND p.n < length(u.search_key)
                    AND instr(substr(u.search_key, p.n, 2), char(10)) = 0;
                """)
    }
}

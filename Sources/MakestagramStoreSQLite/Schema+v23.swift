import GRDB

extension Schema {
    /// Federation: people of other servers among the users (named `user@host`, which the username rule now allows
    /// beside local names), what is known of them (`remote_actors`), the keys local actors sign with (`actor_keys`)
    /// and the activities other servers sent (`inbound_activities`).
    ///
    /// The username rule is a CHECK in the `users` table's definition; SQLite cannot alter one, and rebuilding the
    /// table every other table refers to would rewrite them all. The definition is edited in place instead, as
    /// SQLite documents for a change that does not alter what is on disk ("Making Other Kinds Of Table Schema
    /// Changes", https://sqlite.org/lang_altertable.html): every row that passed the old rule passes the new one.
    static func v23(_ db: Database) throws {
        let old = "CHECK (length(username) BETWEEN 3 AND 30 AND username NOT GLOB '*[^a-z0-9_.]*')"
        let new = """
            CHECK ((length(username) BETWEEN 3 AND 30 AND username NOT GLOB '*[^a-z0-9_.]*') \
            OR (length(username) BETWEEN 3 AND 320 AND username GLOB '?*@?*' AND username NOT GLOB '*[^a-z0-9_.@:-]*'))
            """
        let definition = try String.fetchOne(
            db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'users'")
        guard let definition, definition.contains(old) else {
            throw DatabaseError(message: "the users table's username rule is not the one v23 expects")
        }
        let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
        try db.execute(sql: "PRAGMA writable_schema = ON")
        try db.execute(
            sql: "UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = 'users'",
            arguments: [definition.replacingOccurrences(of: old, with: new)])
        try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
        try db.execute(sql: "PRAGMA writable_schema = OFF")
        try db.execute(
            sql: """
                CREATE TABLE remote_actors (
                  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                  uri TEXT NOT NULL UNIQUE,
                  inbox TEXT NOT NULL,
                  shared_inbox TEXT,
                  key_id TEXT NOT NULL,
                  public_key_pem TEXT NOT NULL,
                  profile_url TEXT,
                  fetched_at REAL NOT NULL
                );
                CREATE INDEX remote_actors_key ON remote_actors(key_id);
                CREATE TABLE actor_keys (
                  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                  private_key BLOB NOT NULL
                );
                CREATE TABLE inbound_activities (
                  id TEXT PRIMARY KEY,
                  actor_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                  kind TEXT NOT NULL CHECK (kind IN ('follow', 'like', 'comment')),
                  object_id INTEGER NOT NULL,
                  received_at REAL NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX inbound_activities_actor ON inbound_activities(actor_id);
                """)
    }
}

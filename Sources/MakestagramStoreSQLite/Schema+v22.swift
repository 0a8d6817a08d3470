import GRDB

extension Schema {
    /// Keys the server keeps for itself: `media`, under which the URLs of private accounts' photos are signed
    /// (``MediaSigning``), made by the store the first time it opens; and an index of the private accounts, which the
    /// store reads when it opens.
    static func v22(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE server_keys (name TEXT PRIMARY KEY, value BLOB NOT NULL);
                CREATE INDEX users_private ON users(id) WHERE is_private = 1;
                """)
    }
}

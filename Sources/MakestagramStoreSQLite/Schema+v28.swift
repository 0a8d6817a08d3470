import GRDB

extension Schema {
    /// How each server answered deliveries lately: when it last took one and last failed, since when it fails (none
    /// while it answers), how many times in a row, and why the last time. Operators read it; a server failing for
    /// long enough is no longer tried until it sends something.
    static func v28(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE delivery_servers (
                  server TEXT PRIMARY KEY,
                  last_delivered REAL,
                  last_failed REAL,
                  failing_since REAL,
                  failures INTEGER NOT NULL DEFAULT 0,
                  last_error TEXT
                ) WITHOUT ROWID;
                """)
    }
}

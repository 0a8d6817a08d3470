import GRDB

extension Schema {
    /// Posts of other servers kept here: which local post shows which remote `Note` (its id and page).
    static func v25(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE remote_posts (
                  post_id INTEGER PRIMARY KEY REFERENCES posts(id) ON DELETE CASCADE,
                  uri TEXT NOT NULL UNIQUE,
                  url TEXT
                );
                """)
    }
}

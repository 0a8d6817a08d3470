import GRDB

extension Schema {
    /// Whether a post of another server was addressed to its author's followers only: kept only while its author is
    /// private here, and removed before they stop being so (their other posts then show to everyone).
    static func v34(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE remote_posts ADD COLUMN followers_only INTEGER NOT NULL DEFAULT 0
                  CHECK (followers_only IN (0, 1));
                """)
    }
}

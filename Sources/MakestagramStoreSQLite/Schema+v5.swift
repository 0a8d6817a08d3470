import GRDB

extension Schema {
    /// Profiles: a bio, and the large square of the avatar (`avatar_file` is the small one).
    static func v5(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE users ADD COLUMN bio TEXT NOT NULL DEFAULT '' CHECK (length(bio) <= 150);
                ALTER TABLE users ADD COLUMN avatar_large_file TEXT;
                """)
    }
}

import GRDB

extension Schema {
    /// When a post's caption was last edited (NULL: never).
    static func v4(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE posts ADD COLUMN edited_at REAL")
    }
}

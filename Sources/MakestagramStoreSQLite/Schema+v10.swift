import GRDB

extension Schema {
    /// Responsive variants of a post's photo (``StoredVariant/column(_:)``): NULL for posts stored before them,
    /// which keep their full JPEG.
    static func v10(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE posts ADD COLUMN variants TEXT")
    }
}

import GRDB

extension Schema {
    /// Alt text: what a post's photo shows, in its author's words (``PostImage/altText``), and the same for a photo
    /// uploaded ahead of its post. Null when the author wrote none.
    static func v17(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE posts ADD COLUMN alt_text TEXT;
                ALTER TABLE media_uploads ADD COLUMN alt_text TEXT;
                """)
    }
}

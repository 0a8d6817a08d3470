import GRDB

extension Schema {
    /// Albums: a post holds 1 to ``Post/photoLimit`` photos. The post's row keeps the first (its cover, which every
    /// grid and activity line reads) and `photo_count`; `post_photos` keeps the others at positions 1, 2, … in the
    /// author's order, each with its own renditions and alt text. Every post stored before is an album of one.
    static func v18(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE posts ADD COLUMN photo_count INTEGER NOT NULL DEFAULT 1;
                CREATE TABLE post_photos (
                  id INTEGER PRIMARY KEY,
                  post_id INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
                  position INTEGER NOT NULL CHECK (position >= 1),
                  width INTEGER NOT NULL, height INTEGER NOT NULL,
                  full_file TEXT NOT NULL, full_width INTEGER NOT NULL, full_height INTEGER NOT NULL,
                  thumb_file TEXT NOT NULL, thumb_width INTEGER NOT NULL, thumb_height INTEGER NOT NULL,
                  variants TEXT, alt_text TEXT,
                  UNIQUE (post_id, position)
                );
                """)
    }
}

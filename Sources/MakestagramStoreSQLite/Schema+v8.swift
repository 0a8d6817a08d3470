import GRDB
import MakestagramAPI

extension Schema {
    /// Posts filed under the #hashtags of their captions (``Hashtags``), for a tag's page: one index range per page.
    /// Written with the post and again with each caption edit; existing captions are filed here.
    static func v8(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE post_tags (
                  tag TEXT NOT NULL CHECK (length(tag) BETWEEN 1 AND 100),
                  post_id INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
                  PRIMARY KEY (tag, post_id)
                ) WITHOUT ROWID;
                CREATE INDEX post_tags_post ON post_tags(post_id);
                """)
        let rows = try Row.fetchAll(db, sql: "SELECT id, caption FROM posts WHERE caption LIKE '%#%'")
        for row in rows {
            try SQLiteStore.file(db, postID: row["id"], caption: row["caption"])
        }
    }
}

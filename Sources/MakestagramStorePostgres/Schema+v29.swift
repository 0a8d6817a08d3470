import Foundation

extension Schema {
    /// Posts of other servers kept here: which local post shows which remote `Note` (its id and page). SQLite's v25
    /// is the same.
    static let v29 = """
        CREATE TABLE remote_posts (
          post_id bigint PRIMARY KEY REFERENCES posts(id) ON DELETE CASCADE,
          uri text NOT NULL UNIQUE,
          url text
        );
        """
}

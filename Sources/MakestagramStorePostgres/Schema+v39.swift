extension Schema {
    /// Whether a post of another server was addressed to its author's followers only: kept only while its author is
    /// private here, and removed before they stop being so. SQLite's v34 is the same.
    static let v39 = """
        ALTER TABLE remote_posts ADD COLUMN followers_only boolean NOT NULL DEFAULT false;
        """
}

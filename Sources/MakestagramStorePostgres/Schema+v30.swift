import Foundation

extension Schema {
    /// Where a remote person's avatar was fetched from, so that it is fetched again only when it changes. SQLite's
    /// v26 is the same.
    static let v30 = """
        ALTER TABLE remote_actors ADD COLUMN icon_url text;
        """
}

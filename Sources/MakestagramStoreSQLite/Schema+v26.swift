import GRDB

extension Schema {
    /// Where a remote person's avatar was fetched from, so that it is fetched again only when it changes.
    static func v26(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE remote_actors ADD COLUMN icon_url TEXT")
    }
}

import GRDB

extension Schema {
    /// People of other servers get no activity here (they read theirs on their own server, and never log in here):
    /// what was kept for them goes, its groups and unread counts with it.
    static func v31(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM activity WHERE recipient_id IN (SELECT user_id FROM remote_actors)")
    }
}

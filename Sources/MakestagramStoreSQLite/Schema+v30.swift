import GRDB

extension Schema {
    /// The farewells of accounts being deleted: while federation runs, an account that has a key (other servers may
    /// hold its posts) keeps its row until federation's consumer has queued the `Delete` of its actor and those
    /// deliveries have ended, so that they are signed with its key. A pending delivery is found by its sender.
    static func v30(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE account_farewells (
                  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE
                );
                CREATE INDEX deliveries_pending_sender ON deliveries(sender_id) WHERE state = 'pending';
                """)
    }
}

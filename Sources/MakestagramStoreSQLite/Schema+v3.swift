import GRDB

extension Schema {
    /// Single-use tickets for opening the event stream, kept with the sessions they were issued under (a log-out
    /// ends them), so that any instance over the database can redeem them.
    static func v3(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE event_tickets (
                  ticket_hash BLOB PRIMARY KEY CHECK (length(ticket_hash) = 32),
                  token_hash BLOB NOT NULL REFERENCES sessions(token_hash) ON DELETE CASCADE,
                  expires_at REAL NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX event_tickets_expiry ON event_tickets(expires_at);
                CREATE INDEX event_tickets_session ON event_tickets(token_hash);
                """)
    }
}

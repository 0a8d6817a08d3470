import GRDB

extension Schema {
    /// Deliveries to other servers, queued by federation's consumer of the change log and sent from here, so that
    /// they survive a crash and a restart: one row per activity and inbox.
    static func v24(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE deliveries (
                  id INTEGER PRIMARY KEY AUTOINCREMENT,
                  activity_id TEXT NOT NULL,
                  inbox TEXT NOT NULL,
                  sender_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
                  body BLOB NOT NULL,
                  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
                  attempts INTEGER NOT NULL DEFAULT 0,
                  next_attempt REAL NOT NULL,
                  last_status INTEGER,
                  last_error TEXT,
                  created_at REAL NOT NULL,
                  finished_at REAL,
                  UNIQUE (activity_id, inbox)
                );
                CREATE INDEX deliveries_due ON deliveries(next_attempt) WHERE state = 'pending';
                CREATE INDEX deliveries_finished ON deliveries(finished_at) WHERE state <> 'pending';
                """)
    }
}

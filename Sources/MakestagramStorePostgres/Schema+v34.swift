import Foundation

extension Schema {
    /// The farewells of accounts being deleted (see SQLite's v30, the same): the account's row stays until the
    /// `Delete` of its actor has been queued and sent, signed with its key.
    static let v34 = """
        CREATE TABLE account_farewells (
          user_id bigint PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE
        );
        CREATE INDEX deliveries_pending_sender ON deliveries(sender_id) WHERE state = 'pending';
        """
}

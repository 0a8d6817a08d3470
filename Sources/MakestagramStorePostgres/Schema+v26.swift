import Foundation

extension Schema {
    /// Keys the server keeps for itself: `media`, under which the URLs of private accounts' photos are signed
    /// (``MediaSigning``), made by the first instance that opens the database and read by every other; and an index
    /// of the private accounts, which each instance reads when it starts.
    static let v26 = """
        CREATE TABLE server_keys (name text PRIMARY KEY, value bytea NOT NULL);
        CREATE INDEX users_private ON users(id) WHERE is_private;
        """
}

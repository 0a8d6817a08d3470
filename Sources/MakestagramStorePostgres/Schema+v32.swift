import Foundation

extension Schema {
    /// How each server answered deliveries lately: when it last took one and last failed, since when it fails (none
    /// while it answers), how many times in a row, and why the last time. SQLite's v28 is the same.
    static let v32 = """
        CREATE TABLE delivery_servers (
          server text PRIMARY KEY,
          last_delivered double precision,
          last_failed double precision,
          failing_since double precision,
          failures integer NOT NULL DEFAULT 0,
          last_error text
        );
        """
}

import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import Testing

@testable import MakestagramStorePostgres

/// Migrations of the PostgreSQL schema that move data, each from the schema just before it.
@Suite(.enabled(if: TestPostgres.isAvailable, "needs MAKESTAGRAM_TEST_POSTGRES"))
struct PostgresMigrationTests {
    /// v38 moves each unread count from `users` to `unread_activity`, where the triggers keep it from then on.
    @Test func unreadCountsMoveToTheirOwnTableAndStayExact() async throws {
        let (url, drop) = try await TestPostgres.makeEmptyDatabase()
        do {
            try await TestPostgres.withClient(url) { client, logger in
                try await Schema.migrate(client, upTo: "v37 likes keyed by their liker", logger: logger)
                func run(_ sql: String) async throws {
                    _ = try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
                }
                func addActivity(recipient: Int64, actor: Int64, source: String) async throws {
                    try await run(
                        """
                        INSERT INTO activity (recipient_id, actor_id, kind, source, group_key, unread, created_at)
                        VALUES (\(recipient), \(actor), 'follow', '\(source)', 'follow', 1, 0)
                        """)
                }
                func unread() async throws -> [[Int64]] {
                    try await client.query(
                        "SELECT user_id, count FROM unread_activity ORDER BY user_id", logger: logger
                    )
                    .collect().map { row in
                        let (user, count) = try row.decode((Int64, Int64).self)
                        return [user, count]
                    }
                }
                for name in ["ana", "ben", "cai"] {
                    try await run(
                        """
                        INSERT INTO users (username, display_name, password_hash, created_at)
                        VALUES ('\(name)', 'U', 'x', 0)
                        """)
                }
                try await addActivity(recipient: 1, actor: 2, source: "a")
                try await addActivity(recipient: 1, actor: 3, source: "b")

                try await Schema.migrate(client, logger: logger)

                #expect(try await unread() == [[1, 2]])
                let column = try await client.query(
                    """
                    SELECT count(*) FROM information_schema.columns
                    WHERE table_name = 'users' AND column_name = 'activity_unread'
                    """, logger: logger
                ).collect().first?.decode(Int64.self)
                #expect(column == 0)

                try await addActivity(recipient: 2, actor: 1, source: "c")
                #expect(try await unread() == [[1, 2], [2, 1]])
                // Read, undone: a count that reaches zero leaves no row.
                try await run("UPDATE activity SET unread = 0 WHERE source = 'a'")
                try await run("DELETE FROM activity WHERE source = 'c'")
                #expect(try await unread() == [[1, 1]])
                try await run("DELETE FROM activity WHERE source = 'a'")
                #expect(try await unread() == [[1, 1]], "a read row's removal leaves the count as it was")
                // Several rows of several recipients in one statement, as the activity consumer writes them.
                try await run(
                    """
                    INSERT INTO activity (recipient_id, actor_id, kind, source, group_key, unread, created_at)
                    VALUES (1, 2, 'follow', 'd', 'follow', 1, 0), (2, 3, 'follow', 'e', 'follow', 1, 0),
                      (2, 1, 'follow', 'f', 'follow', 1, 0)
                    """)
                #expect(try await unread() == [[1, 2], [2, 2]])
                try await run("UPDATE activity SET unread = 0 WHERE recipient_id = 2")
                try await run("DELETE FROM activity WHERE source IN ('b', 'd')")
                #expect(try await unread() == [])
                try await addActivity(recipient: 1, actor: 3, source: "g")
                try await run("DELETE FROM users WHERE id = 1")
                #expect(try await unread() == [])
            }
        } catch {
            await drop()
            throw error
        }
        await drop()
    }
}

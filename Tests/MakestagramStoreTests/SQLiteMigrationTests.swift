import Foundation
import GRDB
import Testing

@testable import MakestagramStoreSQLite

/// Migrations that rebuild a table keep what it held.
struct SQLiteMigrationTests {
    /// Users 1, 2, … named `names`, with only the columns every migration's `users` has.
    static func addUsers(_ db: Database, _ names: String...) throws {
        for name in names {
            try db.execute(
                sql: "INSERT INTO users (username, display_name, password_hash, created_at) VALUES (?, 'U', 'x', 0)",
                arguments: [name])
        }
    }

    /// v32 rebuilds `likes` with its unique pair keyed by the liker.
    @Test func likesKeyedByTheirLikerKeepEveryLikeAndItsId() throws {
        let database = try DatabaseQueue()
        try AppDatabase.migrator.migrate(database, upTo: "v31 no activity for people of other servers")
        try database.write { db in
            try Self.addUsers(db, "ana", "ben", "cai")
            try db.execute(
                sql: """
                    INSERT INTO posts (author_id, caption, width, height, full_file, full_width, full_height,
                      thumb_file, thumb_width, thumb_height, created_at)
                    VALUES (1, 'a post', 10, 10, 'f.jpg', 10, 10, 't.jpg', 10, 10, 0)
                    """)
            for user in 1...3 {
                try db.execute(
                    sql: "INSERT INTO likes (post_id, user_id, created_at) VALUES (1, ?, ?)", arguments: [user, user])
            }
            // The newest like is undone: its id is never given again.
            try db.execute(sql: "DELETE FROM likes WHERE user_id = 3")
        }

        try AppDatabase.migrator.migrate(database)

        try database.write { db in
            let kept = try Row.fetchAll(db, sql: "SELECT id, post_id, user_id, created_at FROM likes ORDER BY id")
            #expect(kept.map { [$0[0], $0[1], $0[2], $0[3]] as [Int64] } == [[1, 1, 1, 1], [2, 1, 2, 2]])
            let indexes = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'likes' ORDER BY name")
            #expect(!indexes.contains("likes_user"))
            #expect(indexes.contains("likes_post"))

            try db.execute(sql: "INSERT INTO likes (post_id, user_id, created_at) VALUES (1, 3, 9)")
            #expect(try Int64.fetchOne(db, sql: "SELECT id FROM likes WHERE user_id = 3") == 4)
            // The pair stays unique, and the triggers keep the post's count and preview.
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO likes (post_id, user_id, created_at) VALUES (1, 2, 9)")
            }
            let post = try Row.fetchOne(db, sql: "SELECT like_count, likers_preview FROM posts WHERE id = 1")
            #expect(post?["like_count"] == 3)
            #expect(post?["likers_preview"] == "cai ben ana")
            try db.execute(sql: "DELETE FROM likes WHERE user_id = 1")
            #expect(try Int.fetchOne(db, sql: "SELECT like_count FROM posts WHERE id = 1") == 2)
        }
    }

    /// v33 moves each unread count from `users` to `unread_activity`, where the triggers keep it from then on.
    @Test func unreadCountsMoveToTheirOwnTableAndStayExact() throws {
        let database = try DatabaseQueue()
        try AppDatabase.migrator.migrate(database, upTo: "v32 likes keyed by their liker")
        func addActivity(_ db: Database, recipient: Int64, actor: Int64, source: String) throws {
            try db.execute(
                sql: """
                    INSERT INTO activity (recipient_id, actor_id, kind, source, group_key, unread, created_at)
                    VALUES (?, ?, 'follow', ?, 'follow', 1, 0)
                    """, arguments: [recipient, actor, source])
        }
        try database.write { db in
            try Self.addUsers(db, "ana", "ben", "cai")
            try addActivity(db, recipient: 1, actor: 2, source: "a")
            try addActivity(db, recipient: 1, actor: 3, source: "b")
        }

        try AppDatabase.migrator.migrate(database)

        try database.write { db in
            func unread() throws -> [[Int64]] {
                try Row.fetchAll(db, sql: "SELECT user_id, count FROM unread_activity ORDER BY user_id")
                    .map { [$0[0], $0[1]] }
            }
            #expect(try unread() == [[1, 2]])
            let columns = try db.columns(in: "users").map(\.name)
            #expect(!columns.contains("activity_unread"))

            try addActivity(db, recipient: 2, actor: 1, source: "c")
            #expect(try unread() == [[1, 2], [2, 1]])
            // Read, undone: a count that reaches zero leaves no row.
            try db.execute(sql: "UPDATE activity SET unread = 0 WHERE source = 'a'")
            try db.execute(sql: "DELETE FROM activity WHERE source = 'c'")
            #expect(try unread() == [[1, 1]])
            try db.execute(sql: "DELETE FROM activity WHERE source = 'a'")
            #expect(try unread() == [[1, 1]], "a read row's removal leaves the count as it was")
            #expect(try Int.fetchOne(db, sql: SQLiteStore.unreadCountSQL, arguments: [2]) == 0)
            try db.execute(sql: "DELETE FROM users WHERE id = 1")
            #expect(try unread() == [])
        }
    }
}

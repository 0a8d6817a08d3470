import Foundation
import GRDB
import Synchronization
import Testing

@testable import MakestagramStoreSQLite

/// Writes that share a commit still succeed or fail alone.
struct GroupCommitTests {
    struct Refused: Error {}

    final class Published: Sendable {
        let indices = Mutex<[Int]>([])
    }

    @Test func aFailedWriteLeavesNothingAndTheOthersCommit() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "group-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try AppDatabase(path: folder.appending(path: "db.sqlite").path)
        let published = Published()
        let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<200 {
                group.addTask {
                    do {
                        try await database.writes.write { db in
                            try db.execute(
                                sql: "INSERT INTO users (username, display_name, password_hash, created_at) "
                                    + "VALUES (?, 'U', 'x', 0)",
                                arguments: ["user\(index)"])
                            database.commitActions.run { published.indices.withLock { $0.append(index) } }
                            // Every fifth write fails after it has written and asked for an action.
                            if index % 5 == 0 { throw Refused() }
                        }
                        return (index, true)
                    } catch is Refused {
                        return (index, false)
                    }
                }
            }
            return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        let committed = Set(outcomes.filter(\.value).map(\.key))
        #expect(committed == Set((0..<200).filter { $0 % 5 != 0 }))
        let stored = try await database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT username FROM users")
        }
        #expect(Set(stored) == Set(committed.map { "user\($0)" }))
        // Each committed write's action ran once, though a group with a failed write runs again.
        #expect(published.indices.withLock { $0 }.sorted() == committed.sorted())
        // A write that fails inside SQLite (a duplicate username) is refused the same way.
        await #expect(throws: DatabaseError.self) {
            try await database.writes.write { db in
                try db.execute(
                    sql:
                        "INSERT INTO users (username, display_name, password_hash, created_at) VALUES ('user1', 'U', 'x', 0)"
                )
            }
        }
    }
}

import Foundation
import GRDB
import Logging
import MakestagramCore
import MakestagramStore
import MakestagramStorePostgres
import MakestagramStoreSQLite
import PostgresTestSupport

/// A fresh store made by a ``StoreFactory``.
struct MadeStore: Sendable {
    var store: any Store
    /// Returns once every committed change has been published to the sink (at once on SQLite, which publishes as it
    /// commits; PostgreSQL publishes what it reads from the change stream) and the activity it causes derived (by the
    /// activity consumer, as a server runs it) and published too.
    var settle: @Sendable () async throws -> Void = {}
    /// The first column of the first row of a query (the same text on both stores) on the store's database, past the
    /// store: for what a store keeps and answers nobody.
    var integer: @Sendable (_ sql: String) async throws -> Int64
    var cleanup: @Sendable () async -> Void
}

/// One way of making a fresh, empty store; the contract suite runs against each.
struct StoreFactory: Sendable, CustomStringConvertible {
    var description: String
    /// Makes a store that publishes its committed changes to the given sink.
    var make: @Sendable (_ events: (any StoreEventSink)?) async throws -> MadeStore

    /// SQLite on a real file in WAL mode, as the server runs it.
    static let sqlite = StoreFactory(description: "SQLite") { events in
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("db.sqlite").path
        let store = SQLiteStore(database: try AppDatabase(path: path), events: events)
        let activity = ActivityConsumer(store: store, bell: ChangeBell(), logger: Logger(label: "test"))
        return MadeStore(
            store: store, settle: { try await activity.catchUp() },
            integer: { sql in
                var configuration = Configuration()
                configuration.readonly = true
                return try DatabaseQueue(path: path, configuration: configuration).read { db in
                    guard let value = try Int64.fetchOne(db, sql: sql) else { throw StoreError.notFound(sql) }
                    return value
                }
            },
            cleanup: { try? FileManager.default.removeItem(at: folder) })
    }

    /// PostgreSQL: a database of its own on the test server, following its change stream.
    static let postgres = StoreFactory(description: "PostgreSQL") { events in
        let (url, drop) = try await TestPostgres.makeDatabase()
        let store = try await PostgresStore.open(
            try PostgresOptions(url: url), events: events, logger: Logger(label: "test"))
        let running = Task { try await store.run() }
        let activity = ActivityConsumer(store: store, bell: ChangeBell(), logger: Logger(label: "test"))
        return MadeStore(
            store: store,
            settle: {
                try await store.caughtUp()
                try await activity.catchUp()
                try await store.caughtUp()
            },
            integer: { sql in try await TestPostgres.integer(sql, on: url) },
            cleanup: {
                store.close()
                running.cancel()
                _ = await running.result
                await drop()
            })
    }

    /// Every store this machine can run: PostgreSQL when the test command started a server.
    static let all: [StoreFactory] = TestPostgres.isAvailable ? [.sqlite, .postgres] : [.sqlite]

    /// Runs `body` with a fresh store, cleaning up however it ends.
    func with(
        _ events: (any StoreEventSink)? = nil, _ body: (MadeStore) async throws -> Void
    ) async throws {
        let made = try await make(events)
        do {
            try await body(made)
        } catch {
            await made.cleanup()
            throw error
        }
        await made.cleanup()
    }
}
/// Helpers shared by the contract tests.
extension Store {
    /// Starts the housekeeping job `job` in a task of its own and returns once it runs; it runs until `release` is
    /// called. The task answers what ``Store/runAlone(_:_:)`` answered.
    func holding(_ job: String) async -> (task: Task<Bool, any Error>, release: @Sendable () -> Void) {
        let (running, started) = AsyncStream.makeStream(of: Void.self)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            try await runAlone(job) {
                started.finish()
                for await _ in released {}
            }
        }
        for await _ in running {}
        return (task, { release.finish() })
    }

    func user(_ name: String) async throws -> Int64 {
        try await createUser(NewUser(username: name, displayName: name.capitalized, passwordHash: "x")).id
    }

    func photoPost(by author: Int64, caption: String = "") async throws -> Int64 {
        let name = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        return try await createPost(
            NewPost(
                authorID: author, caption: caption, width: 400, height: 300,
                full: StoredVariant(fileName: "\(name)f.jpg", width: 400, height: 300),
                thumb: StoredVariant(fileName: "\(name)t.jpg", width: 320, height: 320))
        ).id
    }

    /// Every post of a list, walking its pages.
    func allTimeline(_ viewer: Int64, pageSize: Int) async throws -> [Int64] {
        var ids: [Int64] = []
        var position = PageRequest.Position.start
        while true {
            let page = try await timeline(viewer: viewer, page: PageRequest(position: position, limit: pageSize))
            ids += page.items.map(\.id)
            guard let next = page.nextKey else { return ids }
            position = .after(next)
        }
    }
}

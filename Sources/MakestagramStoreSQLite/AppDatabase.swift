import CSQLiteSettings
import Foundation
import GRDB
import MakestagramAPI
import MakestagramStore
import Synchronization

/// The SQLite database: one writer (a WAL-mode pool on disk, or an in-memory queue) migrated on open.
public struct AppDatabase: Sendable {
    /// The connection(s) every query goes through.
    let writer: any DatabaseWriter
    /// What the stores over this database keep in memory (sessions, timeline windows, versions); every commit's
    /// event goes through it.
    let caches = StoreCaches()
    /// What the current write transaction does once it commits.
    let commitActions = CommitActions()
    /// Every write transaction goes through here.
    let writes: GroupCommit
    /// Reads holding a reader connection (see ``read(_:)``).
    let readers: ReaderSlots
    /// The housekeeping jobs running on this database (``SQLiteStore/runAlone(_:_:)``).
    let runningJobs = RunningJobs()

    /// Opens the database at `path` in WAL mode, creating and migrating it as needed, with `readers` reader
    /// connections.
    public init(path: String, readers: Int = 8) throws {
        Self.configureSQLite
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // Reads come from mapped pages and a 16 MiB page cache per connection instead of a syscall per page.
            // 256 MiB holds the hot pages (indexes, the newest posts and feed rows): on a database of 4 GB, mapping
            // 1 GiB served timelines no faster but added 700 MB of mapped pages to the resident size
            // (Benchmarks/HISTORY.md, "Performance at size").
            try db.execute(sql: "PRAGMA mmap_size = 268435456")
            try db.execute(sql: "PRAGMA cache_size = -16384")
        }
        configuration.maximumReaderCount = readers
        // Another process may write to the same file while the server runs (`makestagram admin grant`): its
        // transaction waits for the other to commit instead of failing with "database is locked" at once.
        configuration.busyMode = .timeout(5)
        let pool = try DatabasePool(path: path, configuration: configuration)
        // FULL: each commit's log reaches the disk (fsync) before the commit returns, so a write the client was
        // told succeeded survives a power loss or kernel crash; NORMAL (which GRDB sets when it opens a pool in WAL
        // mode, after `prepareDatabase`) keeps the database consistent but may lose the last commits. Group commit
        // shares one fsync among the writes that arrive together. Only the writer's setting matters.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        // Each write of a group commit runs in a savepoint, whose journal (the pages as they were before it) SQLite
        // keeps in a temporary file once it passes 64 KiB: on disk, a like toggle wrote more to that file than to the
        // log (Benchmarks/HISTORY.md, "like toggles: the savepoints' journal and checkpoints"). In memory it is freed
        // at each savepoint's release; a group's pages are a few MiB at most.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA temp_store = MEMORY") }
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.checkpointPages)")
        }
        try self.init(writer: pool)
    }

    /// SQLite's process-wide settings, made once before the first connection opens: no count of the memory it has
    /// allocated, which took a mutex on every allocation and release (4.6 % of the writer's samples during like
    /// toggles, Benchmarks/HISTORY.md, "SQLite without its memory count"). Too late if a connection was opened
    /// before (an in-memory database of a test): SQLite then keeps counting, which changes nothing else.
    static let configureSQLite: Void = {
        _ = makestagram_sqlite_memstatus_off()
    }()

    /// Pages in the write-ahead log (40 MiB) past which the writer checkpoints. SQLite's default, 1,000, made the
    /// checkpoint a fifth of the writer's time during like toggles; at 10,000 the toggles ran about a fifth faster
    /// (p99 35 → 51 ms while the writer is saturated), pages written again in between being copied once
    /// (Benchmarks/HISTORY.md, "like toggles: the savepoints' journal and checkpoints").
    static var checkpointPages: Int { 10_000 }

    /// Wraps an open database (a `DatabaseQueue()` in memory for quick tests) and migrates it.
    public init(writer: any DatabaseWriter) throws {
        self.writer = writer
        readers = ReaderSlots(capacity: (writer as? DatabasePool)?.configuration.maximumReaderCount ?? 1)
        writes = GroupCommit(writer: writer, commitActions: commitActions)
        try Self.migrator.migrate(writer)
        try writer.write { try SQLiteStore.fillSearchKeys($0) }
        let hidden = try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT id, username FROM users WHERE status <> 'active'")
                .map { (id: $0["id"] as Int64, username: $0["username"] as String) }
        }
        caches.hiddenUsers.replaceAll(Dictionary(hidden, uniquingKeysWith: { first, _ in first }))
        caches.privateUsers.replaceAll(
            Set(try writer.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM users WHERE is_private = 1") }))
        caches.blockedDomains.replaceAll(
            Dictionary(
                try writer.read { db in
                    try Row.fetchAll(db, sql: "SELECT domain, severity FROM domain_blocks").compactMap { row in
                        DomainBlockSeverity(rawValue: row["severity"]).map { (row["domain"] as String, $0) }
                    }
                }, uniquingKeysWith: { first, _ in first }))
        let key = try writer.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO server_keys (name, value) VALUES ('media', ?)",
                arguments: [MediaSigning.newKey()])
            return try Data.fetchOne(db, sql: "SELECT value FROM server_keys WHERE name = 'media'") ?? Data()
        }
        guard key.count >= 32 else { throw StoreError.database("the media key is missing or short") }
        caches.useMediaKey(Array(key))
        writer.add(transactionObserver: commitActions, extent: .observerLifetime)
    }

    /// Named, append-only migrations: a released migration is never edited, only followed by a new one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1 users, posts, likes, comments, follows, reports", migrate: Schema.v1)
        migrator.registerMigration("v2 likers preview on posts", migrate: Schema.v2)
        migrator.registerMigration("v3 event-stream tickets", migrate: Schema.v3)
        migrator.registerMigration("v4 edited captions", migrate: Schema.v4)
        migrator.registerMigration("v5 bios and large avatars", migrate: Schema.v5)
        migrator.registerMigration("v6 activity", migrate: Schema.v6)
        migrator.registerMigration("v7 hidden like counts", migrate: Schema.v7)
        migrator.registerMigration("v8 hashtags", migrate: Schema.v8)
        migrator.registerMigration("v9 people search", migrate: Schema.v9)
        migrator.registerMigration("v10 responsive variants", migrate: Schema.v10)
        migrator.registerMigration("v11 session details", migrate: Schema.v11)
        migrator.registerMigration("v12 account status and moderation", migrate: Schema.v12)
        migrator.registerMigration("v13 third-party apps", migrate: Schema.v13)
        migrator.registerMigration("v14 app tokens", migrate: Schema.v14)
        migrator.registerMigration("v15 people search by two letters", migrate: Schema.v15)
        migrator.registerMigration("v16 the change log, and activity derived from it", migrate: Schema.v16)
        migrator.registerMigration("v17 alt text", migrate: Schema.v17)
        migrator.registerMigration("v18 albums", migrate: Schema.v18)
        migrator.registerMigration("v19 mutes", migrate: Schema.v19)
        migrator.registerMigration("v20 blocks", migrate: Schema.v20)
        migrator.registerMigration("v21 private accounts and follow requests", migrate: Schema.v21)
        migrator.registerMigration("v22 server keys", migrate: Schema.v22)
        migrator.registerMigration("v23 federation", migrate: Schema.v23)
        migrator.registerMigration("v24 deliveries", migrate: Schema.v24)
        migrator.registerMigration("v25 remote posts", migrate: Schema.v25)
        migrator.registerMigration("v26 remote avatars", migrate: Schema.v26)
        migrator.registerMigration("v27 domain blocks", migrate: Schema.v27)
        migrator.registerMigration("v28 delivery servers", migrate: Schema.v28)
        migrator.registerMigration("v29 remote media", migrate: Schema.v29)
        migrator.registerMigration("v30 account farewells", migrate: Schema.v30)
        migrator.registerMigration("v31 no activity for people of other servers", migrate: Schema.v31)
        migrator.registerMigration("v32 likes keyed by their liker", migrate: Schema.v32)
        migrator.registerMigration("v33 unread counts in a narrow table", migrate: Schema.v33)
        migrator.registerMigration("v34 followers-only remote posts", migrate: Schema.v34)
        return migrator
    }
}

/// The names of the housekeeping jobs running on a database (``SQLiteStore/runAlone(_:_:)``).
final class RunningJobs: Sendable {
    private let names = Mutex<Set<String>>([])

    /// Claims `job`; false when it runs already.
    func claim(_ job: String) -> Bool {
        names.withLock { $0.insert(job).inserted }
    }

    func release(_ job: String) {
        _ = names.withLock { $0.remove(job) }
    }
}

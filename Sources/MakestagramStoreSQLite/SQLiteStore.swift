// MakestagramStoreSQLite: the Store on SQLite through GRDB — the schema whose triggers keep every count exact with
// its rows, the change log every write appends to in its own transaction (what the activity consumer derives from),
// append-only migrations, group commit, reads that never wait on the calling thread, and the caches (sessions,
// timeline windows) that commits keep exact.

import Foundation
import GRDB
import MakestagramAPI
import MakestagramStore

/// The ``Store`` on SQLite: every write is one transaction, and the schema's triggers keep the counts exact.
public struct SQLiteStore: Store {
    let database: AppDatabase
    /// Where committed changes go, for live updates; nil when nobody listens.
    let events: (any StoreEventSink)?

    /// A store over `database` that reports each committed change to `events`.
    public init(database: AppDatabase, events: (any StoreEventSink)? = nil) {
        self.database = database
        self.events = events
    }

    /// Appends `event` to the change log in the current transaction (``ChangeLogStore``), and once the transaction
    /// commits (in commit order, on the writer's queue, before the write is answered) applies it to the caches and
    /// hands it to the sink. A rolled-back transaction does none of it.
    func publishOnCommit(_ db: Database, _ event: @autoclosure () throws -> StoreEvent) throws {
        try publishOnCommit(db, event(), author: nil)
    }

    /// Logs and publishes `event`, a post's deletion by `author` (whose followers its readers find by them).
    ///
    /// An unread count is not logged here. The log's readers on SQLite are its durable consumers (one server has the
    /// database), and an unread count is the activity consumer's own output, which none of them reads; it reaches
    /// the caches and the hub all the same. During like toggles it was a second row, written and pruned, per like.
    /// PostgreSQL logs it, for the sockets on the other instances.
    func publishOnCommit(_ db: Database, _ event: StoreEvent, author: Int64?) throws {
        switch event {
        case .activityChanged: break
        default:
            try db.cachedStatement(sql: "INSERT INTO changes (payload, created_at) VALUES (?, ?)")
                .execute(arguments: [try ChangeRecord(event, author: author).json(), Self.now])
        }
        database.commitActions.run { [caches = database.caches, events] in
            caches.apply(event)
            events?.publish(event)
        }
    }

    /// Runs a write transaction, translating database failures into ``StoreError``.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await database.writes.write(body)
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw StoreError.database(error.description)
        }
    }

    /// Runs a read (see ``AppDatabase/read(_:)``), translating database failures into ``StoreError``.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await database.read(body)
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw StoreError.database(error.description)
        }
    }

    static var now: Double { Date().timeIntervalSince1970 }

    /// The users nobody may see (``HiddenUsers``), as one snapshot for a read.
    var hiddenNames: Set<String> { database.caches.hiddenUsers.names }

    /// The signer of private accounts' photo URLs (``MediaSigning``).
    public var mediaSigning: MediaSigning { database.caches.mediaSigning }

    public var privateUsers: HiddenUsersSummary { database.caches.privateUsers.summary }

    public func accountIsPrivate(_ user: Int64) -> Bool { database.caches.privateUsers.contains(user) }

    /// The names `viewer` may not see in likers previews and comments (``Visibility/hiddenNames(global:partners:)``).
    func hiddenNames(_ db: Database, for viewer: Int64) throws -> Set<String> {
        Visibility.hiddenNames(global: hiddenNames, partners: try blockPartners(db, of: viewer))
    }

    /// Everyone `user` blocks or is blocked by, from memory when held.
    func blockPartners(_ db: Database, of user: Int64) throws -> BlockPartnerSet {
        let cache = database.caches.blockPartners
        let (held, generation) = cache.lookup(user)
        if let held { return held }
        var partners: [Int64: String] = [:]
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT b.blocked_id, u.username FROM blocks b JOIN users u ON u.id = b.blocked_id WHERE b.blocker_id = ?1
                    UNION ALL
                    SELECT b.blocker_id, u.username FROM blocks b JOIN users u ON u.id = b.blocker_id WHERE b.blocked_id = ?1
                    """), arguments: [user])
        while let row = try rows.next() { partners[row[0]] = row[1] }
        return cache.keep(partners, for: user, generation: generation)
    }

    public func blockPartners(of user: Int64) async throws -> BlockPartnerSet {
        if let held = database.caches.blockPartners.lookup(user).partners { return held }
        return try await read { db in try blockPartners(db, of: user) }
    }

    // MARK: Accounts and sessions

    public func createUser(_ user: NewUser) async throws -> UserProfile {
        try await write { db in
            let reserved = try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM reserved_usernames WHERE username = ? AND until > ?)",
                arguments: [user.username, Self.now])
            if reserved == true { throw StoreError.usernameTaken }
            do {
                try db.execute(
                    sql: """
                        INSERT INTO users (username, display_name, password_hash, created_at, search_key)
                        VALUES (?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        user.username, user.displayName, user.passwordHash, Self.now,
                        PeopleSearch.key(username: user.username, displayName: user.displayName),
                    ])
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                throw StoreError.usernameTaken
            }
            let id = db.lastInsertedRowID
            guard let profile = try Self.profile(db, column: "u.id", value: id, viewer: id) else {
                throw StoreError.notFound("user")
            }
            return profile
        }
    }

    public func credentials(username: String) async throws -> Credentials? {
        try await read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT id, password_hash, status FROM users
                    WHERE username = ? AND status <> 'deleting' AND instr(username, '@') = 0
                    """,
                arguments: [username]
            ).map { row in
                Credentials(
                    userID: row["id"], passwordHash: row["password_hash"],
                    status: AccountStatus(rawValue: row["status"]) ?? .suspended)
            }
        }
    }

    public func createSession(userID: Int64, tokenHash: [UInt8], client: SessionClient) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO sessions (token_hash, user_id, created_at, last_used_at, user_agent, address)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [Data(tokenHash), userID, Self.now, Self.now, client.userAgent, client.address])
        }
    }

    public func sessions(userID: Int64) async throws -> [SessionRecord] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT token_hash, created_at, coalesce(last_used_at, created_at) AS used, user_agent, address
                    FROM sessions WHERE user_id = ? ORDER BY used DESC, created_at DESC
                    """,
                arguments: [userID]
            ).map { row in
                SessionRecord(
                    tokenHash: Array(row["token_hash"] as Data),
                    createdAt: Date(timeIntervalSince1970: row["created_at"]),
                    lastUsedAt: Date(timeIntervalSince1970: row["used"]),
                    client: SessionClient(userAgent: row["user_agent"], address: row["address"]))
            }
        }
    }

    public func touchSession(tokenHash: [UInt8], client: SessionClient) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE sessions SET last_used_at = ?, user_agent = ?, address = ? WHERE token_hash = ?",
                arguments: [Self.now, client.userAgent, client.address, Data(tokenHash)])
        }
    }

    public func changePassword(userID: Int64, passwordHash: String, keeping tokenHash: [UInt8]) async throws -> Int {
        try await write { db in
            try db.execute(
                sql: "UPDATE users SET password_hash = ? WHERE id = ?", arguments: [passwordHash, userID])
            guard db.changesCount > 0 else { throw StoreError.notFound("user") }
            let ended = try Data.fetchAll(
                db, sql: "DELETE FROM sessions WHERE user_id = ? AND token_hash <> ? RETURNING token_hash",
                arguments: [userID, Data(tokenHash)])
            for hash in ended { try publishOnCommit(db, .sessionEnded(tokenHash: Array(hash))) }
            return ended.count
        }
    }

    public func deleteSession(tokenHash: [UInt8]) async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE token_hash = ?", arguments: [Data(tokenHash)])
            guard db.changesCount > 0 else { return }
            // Before the log-out is answered the cached session goes: from then on no request authenticates with it.
            try publishOnCommit(db, .sessionEnded(tokenHash: tokenHash))
        }
    }

    public func session(tokenHash: [UInt8]) async throws -> SessionIdentity? {
        // Hashes of another length (never made by the server) are looked up but not cached.
        let key = SessionKey(tokenHash)
        let (cached, generation) = key.map(database.caches.sessions.lookup) ?? (nil, 0)
        if let cached { return cached }
        let identity = try await read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT u.id AS author_id, u.username, u.display_name, u.avatar_file, s.app_id, s.scopes
                        FROM sessions s JOIN users u ON u.id = s.user_id AND u.status = 'active'
                        WHERE s.token_hash = ?
                        """),
                arguments: [Data(tokenHash)]
            ).map { row in SessionIdentity(user: PostQuery.author(row), appID: row["app_id"], scopes: row["scopes"]) }
        }
        if let identity, let key { database.caches.sessions.insert(identity, for: key, generation: generation) }
        return identity
    }

    public func createEventTicket(ticketHash: [UInt8], tokenHash: [UInt8], expiresAt: Date) async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM event_tickets WHERE expires_at < ?", arguments: [Self.now])
            try db.execute(
                sql: "INSERT INTO event_tickets (ticket_hash, token_hash, expires_at) VALUES (?, ?, ?)",
                arguments: [Data(ticketHash), Data(tokenHash), expiresAt.timeIntervalSince1970])
        }
    }

    public func redeemEventTicket(ticketHash: [UInt8]) async throws -> (user: UserSummary, tokenHash: [UInt8])? {
        let tokenHash = try await write { db -> [UInt8]? in
            let row = try Row.fetchOne(
                db,
                sql: "DELETE FROM event_tickets WHERE ticket_hash = ? AND expires_at >= ? RETURNING token_hash",
                arguments: [Data(ticketHash), Self.now])
            return row.map { [UInt8]($0["token_hash"] as Data) }
        }
        guard let tokenHash, let user = try await sessionUser(tokenHash: tokenHash) else { return nil }
        return (user, tokenHash)
    }

    // MARK: Maintenance

    public func referencedMediaFiles() async throws -> MediaNameSet {
        try await referencedMediaFiles(sliceSize: 20_000)
    }

    /// One server runs on a SQLite database, so a job is only claimed within this process.
    public func runAlone(_ job: String, _ body: @escaping @Sendable () async throws -> Void) async throws -> Bool {
        guard database.runningJobs.claim(job) else { return false }
        defer { database.runningJobs.release(job) }
        try await body()
        return true
    }

    /// ``referencedMediaFiles()`` reading `sliceSize` rows at a time.
    func referencedMediaFiles(sliceSize: Int) async throws -> MediaNameSet {
        var files = MediaNameSet()
        // Posts and users in slices of their IDs, each its own short read: one read of a million posts would hold
        // a reader (and the WAL's checkpoint) for seconds.
        for (table, columns) in [
            ("posts", "full_file, thumb_file, variants"), ("users", "avatar_file, avatar_large_file, NULL"),
            ("media_uploads", "full_file, thumb_file, variants"), ("post_photos", "full_file, thumb_file, variants"),
        ] {
            var after: Int64 = 0
            while true {
                try Task.checkCancellation()
                let (slice, last) = try await read { [after] db -> (MediaNameSet, Int64?) in
                    var slice = MediaNameSet()
                    var last: Int64?
                    let rows = try Row.fetchCursor(
                        db, sql: "SELECT id, \(columns) FROM \(table) WHERE id > ? ORDER BY id LIMIT ?",
                        arguments: [after, sliceSize])
                    while let row = try rows.next() {
                        last = row[0]
                        for column in 1...2 { if let name: String = row[column] { slice.insert(name) } }
                        if let variants: String = row[3] {
                            for item in variants.split(separator: " ") { slice.insert(item) }
                        }
                    }
                    return (slice, last)
                }
                files.formUnion(slice)
                guard let last else { break }
                after = last
            }
        }
        return files
    }
}

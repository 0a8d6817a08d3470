// MakestagramStorePostgres: the Store on PostgreSQL through postgres-nio, for several server instances sharing one
// database — the same schema and guarantees as the SQLite store (triggers keep every count exact with its rows;
// keyset pages), migrations under an advisory lock, and the change log: every write appends its change in its own
// transaction, the activity consumer derives from it, and every instance reads it to keep its caches and its live
// sockets true whichever instance made a change.

import Foundation
import Logging
import MakestagramAPI
import MakestagramStore
import PostgresNIO
import ServiceLifecycle

/// The ``Store`` on PostgreSQL. Open one with ``open(_:events:logger:)`` and run it (it is a `Service`): running
/// reads the change stream (``ChangeStream``) until shutdown, then closes the connections.
///
/// Each write is one transaction ending in a row of the `changes` table. When it commits, this instance applies the
/// change to its caches at once (so that whoever made it reads it back), and every instance, this one included,
/// reads it from the stream, applies it to its caches again (idempotently) and hands it to `events` for its
/// sockets.
public final class PostgresStore: Store, Service {
    let client: PostgresClient
    let caches = StoreCaches()
    let logger: Logger
    let stream: ChangeStream
    let likeBatches = LikeBatches()
    private let operationTimeout: Duration

    /// How long an operation may take, waiting for a connection included, before it fails as unavailable: one
    /// second while the change stream cannot be read either (the database is out of reach: fail fast), else the
    /// configured ``PostgresOptions/operationTimeout``.
    var timeout: Duration { stream.isFailing ? min(.seconds(1), operationTimeout) : operationTimeout }
    private let clientTask: Task<Void, Never>
    private let started: AsyncStream<Void>

    /// Connects to the database `options` name, migrates it, and starts following its changes; `events` receives
    /// every change any instance commits, in commit order. Throws ``StoreError/unavailable(_:)`` when the database
    /// cannot be reached.
    public static func open(_ options: PostgresOptions, events: (any StoreEventSink)?, logger: Logger) async throws
        -> PostgresStore
    {
        let store = PostgresStore(options, events: events, logger: logger)
        await store.clientStarted()
        do {
            // Reachable first, within the timeout; then migrations, however long they take.
            _ = try await store.read { connection in try await connection.query("SELECT 1", logger: logger) }
            try await store.mapErrors { try await Schema.migrate(store.client, logger: logger) }
            try await store.fillSearchKeys()
            try await store.loadMediaKey()
            try await store.stream.start()
        } catch {
            store.close()
            throw error
        }
        return store
    }

    private init(_ options: PostgresOptions, events: (any StoreEventSink)?, logger: Logger) {
        self.logger = logger
        operationTimeout = options.operationTimeout
        // The pool logs each failed connection attempt at info: while the database is down, that is several lines a
        // second. The change stream says once that it is out of reach, and again when it is back.
        var poolLogger = logger
        poolLogger.logLevel = max(logger.logLevel, .notice)
        let client = PostgresClient(configuration: options.client, backgroundLogger: poolLogger)
        self.client = client
        let (started, starting) = AsyncStream.makeStream(of: Void.self)
        self.started = started
        clientTask = Task {
            starting.finish()
            await client.run()
        }
        stream = ChangeStream(
            client: client, caches: caches, events: events, options: options,
            logger: logger)
    }

    /// Reads the key of private accounts' photo URLs, which the first instance to open the database makes.
    private func loadMediaKey() async throws {
        let key = try await read { [logger] connection in
            try await connection.query(
                """
                INSERT INTO server_keys (name, value) VALUES ('media', \(MediaSigning.newKey()))
                ON CONFLICT (name) DO NOTHING
                """, logger: logger)
            let rows = try await connection.query(
                "SELECT value FROM server_keys WHERE name = 'media'", logger: logger
            ).collect()
            return Array(try rows.first?.decode(Data.self) ?? Data())
        }
        guard key.count >= 32 else { throw StoreError.database("the media key is missing or short") }
        caches.useMediaKey(key)
    }

    /// Returns once the connection pool runs (leasing before would log a warning).
    private func clientStarted() async {
        for await _ in started {}
        await Task.yield()
    }

    /// Follows the change stream until graceful shutdown, then closes the connections.
    public func run() async throws {
        await withGracefulShutdownHandler {
            await stream.run()
        } onGracefulShutdown: {
            self.stream.stop()
        }
        close()
    }

    /// Returns once every change committed (by any instance) before the call has been applied to this instance's
    /// caches and published to its sink.
    public func caughtUp() async throws {
        try await mapErrors { try await stream.caughtUp() }
    }

    /// Stops following changes and closes every connection.
    public func close() {
        stream.stop()
        clientTask.cancel()
    }

    // MARK: Running statements

    /// Runs `body` on a pooled connection, translating failures into ``StoreError``.
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await mapErrors { try await client.leased(timeout: timeout, body) }
    }

    /// Runs `body` in a transaction whose changes are published: `body` records each event it causes in the
    /// ``Changes`` it is given; they are written to the change table as the transaction's last statement, applied to
    /// this instance's caches once it commits, and announced to the other instances. A deadlock or serialization
    /// failure (possible between triggers of concurrent writes) runs the whole transaction again.
    func write<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection, Changes) async throws -> T) async throws
        -> T
    {
        try await retrying {
            let changes = Changes()
            let result = try await mapErrors {
                try await client.leased(timeout: timeout) { [logger] connection in
                    try await connection.query("BEGIN", logger: logger)
                    do {
                        let result = try await body(connection, changes)
                        if !changes.records.isEmpty {
                            let payloads = try changes.records.map { try $0.json() }
                            try await connection.query(
                                "INSERT INTO changes (payload) SELECT unnest(\(payloads)::text[])", logger: logger)
                        }
                        try await connection.query("COMMIT", logger: logger)
                        return result
                    } catch {
                        _ = try? await connection.query("ROLLBACK", logger: logger)
                        throw error
                    }
                }
            }
            committed(changes.events)
            return result
        }
    }

    /// Runs `body` again after a deadlock or serialization failure (possible between the triggers of concurrent
    /// writes), a few times, with a short growing pause.
    func retrying<T>(_ body: () async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch PostgresFailure.retry where attempt < 8 {
                attempt += 1
                try? await Task.sleep(for: .milliseconds(attempt * 2))
            }
        }
    }

    /// What a committed transaction of this instance changed: applied to the caches before it is answered, and
    /// every instance is told to read the stream.
    func committed(_ events: [StoreEvent]) {
        guard !events.isEmpty else { return }
        for event in events { caches.apply(event) }
        stream.committed()
    }

    /// Runs `body`, translating postgres-nio's errors into ``StoreError``: constraint and data errors keep their
    /// meaning, a lost or unreachable server becomes ``StoreError/unavailable(_:)``.
    func mapErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StoreError {
            throw error
        } catch let error as PostgresFailure {
            throw error
        } catch let error as PSQLError {
            throw Self.storeError(error)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw StoreError.unavailable(String(describing: error))
        }
    }

    static func storeError(_ error: PSQLError) -> any Error {
        guard let state = error.serverInfo?[.sqlState] else {
            return StoreError.unavailable("\(error.code)")
        }
        let message = error.serverInfo?[.message] ?? "\(error.code)"
        switch state {
        case "40001", "40P01": return PostgresFailure.retry
        case "23505": return PostgresFailure.uniqueViolation(error.serverInfo?[.constraintName] ?? "")
        case "23503":
            return StoreError.notFound(error.serverInfo?[.constraintName].map(Self.referenced(by:)) ?? "item")
        case _ where state.hasPrefix("08") || state.hasPrefix("57P") || state == "53300":
            return StoreError.unavailable(message)
        default: return StoreError.database("\(state): \(message)")
        }
    }

    /// What a foreign key constraint named by PostgreSQL (`likes_post_id_fkey`) refers to.
    static func referenced(by constraint: String) -> String {
        if constraint.contains("post_id") { return "post" }
        if constraint.contains("token_hash") { return "session" }
        return "user"
    }

    static var now: Double { Date().timeIntervalSince1970 }

    /// The ASCII lower case of a username as typed: stored names are ASCII lower case (the schema checks), and only
    /// ASCII letters fold, as SQLite's NOCASE does (a Kelvin sign must not find `kate`).
    /// The users nobody may see (``HiddenUsers``), as one snapshot for a read.
    var hiddenNames: Set<String> { caches.hiddenUsers.names }

    /// The signer of private accounts' photo URLs (``MediaSigning``).
    public var mediaSigning: MediaSigning { caches.mediaSigning }

    public var privateUsers: HiddenUsersSummary { caches.privateUsers.summary }

    public func accountIsPrivate(_ user: Int64) -> Bool { caches.privateUsers.contains(user) }

    /// The names `viewer` may not see in likers previews and comments (``Visibility/hiddenNames(global:partners:)``).
    func hiddenNames(_ connection: PostgresConnection, for viewer: Int64) async throws -> Set<String> {
        Visibility.hiddenNames(global: hiddenNames, partners: try await blockPartners(connection, of: viewer))
    }

    /// Everyone `user` blocks or is blocked by, from memory when held (and the caches are trusted: an instance cut
    /// off from the change stream reads the database).
    func blockPartners(_ connection: PostgresConnection, of user: Int64) async throws -> BlockPartnerSet {
        let cache = caches.blockPartners
        let (held, generation) = cache.lookup(user)
        if let held, caches.isTrusted { return held }
        var partners: [Int64: String] = [:]
        let rows = try await connection.query(
            """
            SELECT b.blocked_id, u.username FROM blocks b JOIN users u ON u.id = b.blocked_id WHERE b.blocker_id = \(user)
            UNION ALL
            SELECT b.blocker_id, u.username FROM blocks b JOIN users u ON u.id = b.blocker_id WHERE b.blocked_id = \(user)
            """, logger: logger)
        for try await (id, name) in rows.decode((Int64, String).self) { partners[id] = name }
        return cache.keep(partners, for: user, generation: generation)
    }

    public func blockPartners(of user: Int64) async throws -> BlockPartnerSet {
        if caches.isTrusted, let held = caches.blockPartners.lookup(user).partners { return held }
        return try await read { connection in try await self.blockPartners(connection, of: user) }
    }

    static func folded(_ username: String) -> String {
        String(
            decoding: username.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }

    // MARK: Accounts and sessions

    public func createUser(_ user: NewUser) async throws -> UserProfile {
        do {
            return try await write { [logger] connection, _ in
                let reserved = try await connection.query(
                    """
                    SELECT 1 FROM reserved_usernames WHERE username = \(Self.folded(user.username))
                      AND until > \(Self.now)
                    """, logger: logger
                ).collect()
                if !reserved.isEmpty { throw StoreError.usernameTaken }
                let rows = try await connection.query(
                    """
                    INSERT INTO users (username, display_name, password_hash, created_at, search_key)
                    VALUES (\(user.username), \(user.displayName), \(user.passwordHash), \(Self.now),
                      \(PeopleSearch.key(username: user.username, displayName: user.displayName)))
                    RETURNING id
                    """, logger: logger
                ).collect()
                let id = try rows[0].decode(Int64.self)
                guard let profile = try await Self.profile(connection, id: id, viewer: id, logger: logger) else {
                    throw StoreError.notFound("user")
                }
                return profile
            }
        } catch PostgresFailure.uniqueViolation {
            throw StoreError.usernameTaken
        }
    }

    public func credentials(username: String) async throws -> Credentials? {
        try await read { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT id, password_hash, status FROM users
                WHERE username = \(Self.folded(username)) AND status <> 'deleting' AND position('@' in username) = 0
                """, logger: logger
            ).collect()
            return try rows.first.map { row in
                let (id, hash, status) = try row.decode((Int64, String, String).self)
                return Credentials(
                    userID: id, passwordHash: hash, status: AccountStatus(rawValue: status) ?? .suspended)
            }
        }
    }

    public func createSession(userID: Int64, tokenHash: [UInt8], client: SessionClient) async throws {
        _ = try await read { [logger] connection in
            try await connection.query(
                """
                INSERT INTO sessions (token_hash, user_id, created_at, last_used_at, user_agent, address)
                VALUES (\(Data(tokenHash)), \(userID), \(Self.now), \(Self.now), \(client.userAgent), \(client.address))
                """, logger: logger)
        }
    }

    public func sessions(userID: Int64) async throws -> [SessionRecord] {
        try await read { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT token_hash, created_at, coalesce(last_used_at, created_at) AS used, user_agent, address
                FROM sessions WHERE user_id = \(userID) ORDER BY used DESC, created_at DESC
                """, logger: logger)
            var sessions: [SessionRecord] = []
            for try await (hash, created, used, agent, address) in rows.decode(
                (Data, Double, Double, String?, String?).self)
            {
                sessions.append(
                    SessionRecord(
                        tokenHash: Array(hash), createdAt: Date(timeIntervalSince1970: created),
                        lastUsedAt: Date(timeIntervalSince1970: used),
                        client: SessionClient(userAgent: agent, address: address)))
            }
            return sessions
        }
    }

    public func touchSession(tokenHash: [UInt8], client: SessionClient) async throws {
        _ = try await read { [logger] connection in
            try await connection.query(
                """
                UPDATE sessions SET last_used_at = \(Self.now), user_agent = \(client.userAgent),
                  address = \(client.address)
                WHERE token_hash = \(Data(tokenHash))
                """, logger: logger)
        }
    }

    public func changePassword(userID: Int64, passwordHash: String, keeping tokenHash: [UInt8]) async throws -> Int {
        try await write { [logger] connection, changes in
            let updated = try await connection.query(
                "UPDATE users SET password_hash = \(passwordHash) WHERE id = \(userID) RETURNING 1", logger: logger
            ).collect()
            guard !updated.isEmpty else { throw StoreError.notFound("user") }
            let rows = try await connection.query(
                """
                DELETE FROM sessions WHERE user_id = \(userID) AND token_hash <> \(Data(tokenHash))
                RETURNING token_hash
                """, logger: logger)
            var ended = 0
            for try await hash in rows.decode(Data.self) {
                changes.publish(.sessionEnded(tokenHash: Array(hash)))
                ended += 1
            }
            return ended
        }
    }

    public func deleteSession(tokenHash: [UInt8]) async throws {
        try await write { [logger] connection, changes in
            let rows = try await connection.query(
                "DELETE FROM sessions WHERE token_hash = \(Data(tokenHash)) RETURNING 1", logger: logger
            ).collect()
            if !rows.isEmpty { changes.publish(.sessionEnded(tokenHash: tokenHash)) }
        }
    }

    public func session(tokenHash: [UInt8]) async throws -> SessionIdentity? {
        // Hashes of another length (never made by the server) are looked up but not cached.
        let key = caches.isTrusted ? SessionKey(tokenHash) : nil
        let (cached, generation) = key.map(caches.sessions.lookup) ?? (nil, 0)
        if let cached { return cached }
        let user = try await read { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT u.id, u.username, u.display_name, u.avatar_file, s.app_id, s.scopes
                FROM sessions s JOIN users u ON u.id = s.user_id AND u.status = 'active'
                WHERE s.token_hash = \(Data(tokenHash))
                """, logger: logger
            ).collect()
            return try rows.first.map { row in
                let (id, username, displayName, avatar, app, scopes) = try row.decode(
                    (Int64, String, String, String?, Int64?, String?).self)
                return SessionIdentity(
                    user: UserSummary(
                        id: id, username: username, displayName: displayName,
                        avatarURL: avatar.map(MediaPath.url(for:))),
                    appID: app, scopes: scopes)
            }
        }
        if let user, let key { caches.sessions.insert(user, for: key, generation: generation) }
        return user
    }

    public func createEventTicket(ticketHash: [UInt8], tokenHash: [UInt8], expiresAt: Date) async throws {
        _ = try await read { [logger] connection in
            try await connection.query(
                """
                WITH expired AS (DELETE FROM event_tickets WHERE expires_at < \(Self.now))
                INSERT INTO event_tickets (ticket_hash, token_hash, expires_at)
                VALUES (\(Data(ticketHash)), \(Data(tokenHash)), \(expiresAt.timeIntervalSince1970))
                """, logger: logger)
        }
    }

    public func redeemEventTicket(ticketHash: [UInt8]) async throws -> (user: UserSummary, tokenHash: [UInt8])? {
        let tokenHash = try await read { [logger] connection -> [UInt8]? in
            let rows = try await connection.query(
                """
                DELETE FROM event_tickets WHERE ticket_hash = \(Data(ticketHash)) AND expires_at >= \(Self.now)
                RETURNING token_hash
                """, logger: logger
            ).collect()
            return try rows.first.map { [UInt8](try $0.decode(Data.self)) }
        }
        guard let tokenHash, let user = try await sessionUser(tokenHash: tokenHash) else { return nil }
        return (user, tokenHash)
    }

    // MARK: Maintenance

    /// One query, streamed, on a connection of the pool without the operation timeout (a million posts take
    /// seconds), decoded on the caller's executor (the server runs it on its maintenance thread).
    public func referencedMediaFiles() async throws -> MediaNameSet {
        try await mapErrors {
            try await self.client.withOpenConnection { [logger] connection in
                let rows = try await connection.query(
                    """
                    SELECT full_file FROM posts UNION ALL SELECT thumb_file FROM posts
                    UNION ALL SELECT avatar_file FROM users WHERE avatar_file IS NOT NULL
                    UNION ALL SELECT avatar_large_file FROM users WHERE avatar_large_file IS NOT NULL
                    UNION ALL SELECT unnest(string_to_array(variants, ' ')) FROM posts WHERE variants IS NOT NULL
                    UNION ALL SELECT full_file FROM media_uploads UNION ALL SELECT thumb_file FROM media_uploads
                    UNION ALL SELECT unnest(string_to_array(variants, ' ')) FROM media_uploads WHERE variants IS NOT NULL
                    UNION ALL SELECT full_file FROM post_photos UNION ALL SELECT thumb_file FROM post_photos
                    UNION ALL SELECT unnest(string_to_array(variants, ' ')) FROM post_photos WHERE variants IS NOT NULL
                    """, logger: logger)
                var files = MediaNameSet()
                for try await name in rows.decode(String.self) { files.insert(name) }
                return files
            }
        }
    }

    /// Claims the job with a session-level advisory lock, held by one pooled connection for as long as `body` runs.
    /// PostgreSQL releases it when that connection ends, so an instance that dies mid-job frees it. When the job is
    /// over this instance unlocks (within the operation timeout: a query on a connection the server has closed
    /// meanwhile would never be answered, as postgres-nio drops its write) and then ends the connection, so that
    /// the job can be claimed again as soon as this call returns.
    public func runAlone(_ job: String, _ body: @escaping @Sendable () async throws -> Void) async throws -> Bool {
        let (key, logger, timeout) = (Self.advisoryKey(job), logger, timeout)
        let outcome: Result<Bool, any Error> = try await mapErrors {
            try await client.withOpenConnection { connection in
                let claimed = try await abandoning(after: timeout) {
                    try await connection.query("SELECT pg_try_advisory_lock(\(key))", logger: logger)
                        .collect().first?.decode(Bool.self) ?? false
                }
                guard claimed else { return .success(false) }
                // The body's own errors reach the caller as they are, not as database errors.
                let outcome: Result<Bool, any Error>
                do {
                    try await body()
                    outcome = .success(true)
                } catch {
                    outcome = .failure(error)
                }
                // Unlocked before the connection closes: the server ends a closed connection's session (and so
                // frees its locks) only some time after the client has gone.
                _ = try? await abandoning(after: timeout) {
                    try await connection.query("SELECT pg_advisory_unlock(\(key))", logger: logger).collect().count
                }
                try? await connection.close()
                return outcome
            }
        }
        return try outcome.get()
    }

    /// A job's advisory lock key: FNV-1a of its name, so that every instance (of any build) derives the same one.
    static func advisoryKey(_ job: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in job.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }
}

/// The events a write transaction causes, in the order it causes them.
final class Changes: @unchecked Sendable {
    // Only touched by the task running the transaction.
    private(set) var events: [StoreEvent] = []
    private(set) var records: [ChangeRecord] = []

    /// Publishes `event` once the transaction commits; `author` is a deleted post's author (its audience is
    /// resolved by each reader from the author's followers).
    func publish(_ event: StoreEvent, author: Int64? = nil) {
        events.append(event)
        records.append(ChangeRecord(event, author: author))
    }
}

/// Failures the store handles itself before they become a ``StoreError``.
enum PostgresFailure: Error {
    /// A deadlock or serialization failure: the transaction is run again.
    case retry
    /// A unique constraint (named) refused a row.
    case uniqueViolation(String)
}

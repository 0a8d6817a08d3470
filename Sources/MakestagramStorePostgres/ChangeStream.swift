import Foundation
import Logging
import MakestagramAPI
import MakestagramStore
import PostgresNIO
import Synchronization

/// Brings every change any instance commits to this instance's caches and live hub, in commit order.
///
/// **Why a change table and not NOTIFY payloads.** Each write transaction ends by inserting its change into the
/// `changes` table, taking its `seq` after the row locks it holds until commit, so changes to one post commit in
/// `seq` order. A reader takes every committed row it has not handed on yet, in `seq` order (so per post in commit
/// order): those of the transactions its last read's snapshot saw running or that began after it, the only ones
/// that can become visible later. It reads as the durable consumers do
/// (``PostgresStore/readLog(_:from:limit:logger:)``, its ``LogPosition`` kept in memory), at most
/// ``PostgresOptions/changeReadBatch`` rows at a time, so that neither a backlog nor a transaction left open for
/// minutes makes a read take up more than a batch. NOTIFY inside each transaction would deliver the
/// same in commit order, but it takes a database-wide lock at commit: measured with pgbench on this project's
/// 2-core machine, 64 clients, a like-shaped UPDATE ran at 4,000–5,900 transactions/s alone, 1,000–1,100 with a
/// NOTIFY in each transaction, and 2,900–3,200 with an INSERT into a change table instead. A missed notification
/// also loses its payload forever, while rows wait in the table: an instance that could not read for a while reads
/// them when it can again and misses nothing (unless it stayed away longer than ``PostgresOptions/changeRetention``).
///
/// **Waking readers.** NOTIFY stays only as a doorbell without payload, sent outside the writing transactions and
/// coalesced (at most one in flight per instance, so bursts of writes ring once or twice); the instance that wrote
/// reads at once without waiting for it, and every reader also polls every ``PostgresOptions/pollInterval``, so a
/// lost listening connection delays changes but loses none.
///
/// **When the stream cannot be read** (the database is unreachable), the caches stop answering within
/// ``PostgresOptions/staleness`` (``StoreCaches/distrust()``), so nothing another instance changed — a log-out,
/// above all — is served from memory. When reading resumes, the missed rows are applied and the caches trusted
/// again; if the gap was longer than the table keeps changes, the instance publishes ``StoreEvent/changesMissed``
/// instead: caches empty, every live client closed with the resync code, and a log line says so.
final class ChangeStream: Sendable {
    static let channel = "makestagram_changes"

    private struct State {
        /// Where the stream stands in the log, as a durable consumer's position but kept in memory: the snapshot of
        /// its last complete read (every change it sees has been read) and, while a backlog is read batch by batch,
        /// how far the reading got.
        var position = LogPosition(base: LogSnapshot(xmin: 0, xmax: 0))
        /// When the stream was last read successfully.
        var lastRead = ContinuousClock.now
        var notifying = Notifying.idle
        var stopped = false
    }

    private enum Notifying {
        case idle, sending, sendingAndAgain
    }

    private let client: PostgresClient
    private let caches: StoreCaches
    private let events: (any StoreEventSink)?
    private let options: PostgresOptions
    private let logger: Logger
    private let state = Mutex(State())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let failing = Atomic(false)

    /// Whether the last read of the stream failed (the database is probably out of reach).
    var isFailing: Bool { failing.load(ordering: .relaxed) }

    init(
        client: PostgresClient, caches: StoreCaches, events: (any StoreEventSink)?, options: PostgresOptions,
        logger: Logger
    ) {
        self.client = client
        self.caches = caches
        self.events = events
        self.options = options
        self.logger = logger
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Starts from now: the caches are empty, so nothing before matters; the users nobody may see are read afresh.
    func start() async throws {
        let position = try await client.leased(timeout: options.operationTimeout) { [logger] connection in
            try await PostgresStore.currentPosition(connection, logger: logger)
        }
        var hidden: [Int64: String] = [:]
        for row in try await query("SELECT id, username FROM users WHERE status <> 'active'") {
            let (id, username) = try row.decode((Int64, String).self)
            hidden[id] = username
        }
        caches.hiddenUsers.replaceAll(hidden)
        var privateUsers = Set<Int64>()
        for row in try await query("SELECT id FROM users WHERE is_private") {
            privateUsers.insert(try row.decode(Int64.self))
        }
        caches.privateUsers.replaceAll(privateUsers)
        var blockedDomains: [String: DomainBlockSeverity] = [:]
        for row in try await query("SELECT domain, severity FROM domain_blocks") {
            let (domain, severity) = try row.decode((String, String).self)
            blockedDomains[domain] = DomainBlockSeverity(rawValue: severity)
        }
        caches.blockedDomains.replaceAll(blockedDomains)
        state.withLock {
            $0.position = position
            $0.lastRead = .now
        }
        caches.trust(for: options.staleness)
    }

    /// A transaction of this instance committed changes: read them now, and ring the other instances.
    func committed() {
        wake.yield()
        let send = state.withLock { state -> Bool in
            switch state.notifying {
            case .idle:
                state.notifying = .sending
                return true
            case .sending, .sendingAndAgain:
                state.notifying = .sendingAndAgain
                return false
            }
        }
        guard send else { return }
        Task {
            while true {
                _ = try? await query("SELECT pg_notify(\(Self.channel), '')")
                let again = state.withLock { state -> Bool in
                    if case .sendingAndAgain = state.notifying {
                        state.notifying = .sending
                        return true
                    }
                    state.notifying = .idle
                    return false
                }
                if !again { return }
            }
        }
    }

    /// Returns once every change committed before the call has been read, applied and published here.
    func caughtUp() async throws {
        // A transaction ID of its own, committed: once a complete read's snapshot sees it, it saw everything
        // committed before it.
        let rows = try await query("SELECT pg_current_xact_id()::text")
        guard let mark = UInt64(try rows[0].decode(String.self)) else { return }
        while !state.withLock({ $0.position.base.sees(mark) }) {
            wake.yield()
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Runs one statement on a pooled connection, with the store's timeout.
    private func query(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await client.leased(timeout: options.operationTimeout) { [logger] connection in
            try await connection.query(query, logger: logger).collect()
        }
    }

    /// Ends ``run()``.
    func stop() {
        state.withLock { $0.stopped = true }
        wake.finish()
    }

    /// Reads the stream whenever rung and at every poll interval, and listens for the other instances' rings,
    /// until ``stop()``.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.follow() }
            group.addTask { await self.listen() }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: self.options.pollInterval)
                    self.wake.yield()
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    private func follow() async {
        var failing = false
        var lastCleanUp = ContinuousClock.now
        for await _ in wakeups {
            do {
                try await read()
                self.failing.store(false, ordering: .relaxed)
                if failing {
                    logger.notice("reading the change stream again")
                    failing = false
                }
                if ContinuousClock.now - lastCleanUp > .seconds(60) {
                    lastCleanUp = .now
                    try await query(Self.prune(olderThan: options.changeRetention))
                }
            } catch {
                caches.distrust()
                self.failing.store(true, ordering: .relaxed)
                if state.withLock({ $0.stopped }) { return }
                if !failing {
                    logger.error(
                        "cannot read the change stream; caches are not used until it can be read again",
                        metadata: ["error": "\(String(reflecting: error))"])
                    failing = true
                }
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// Removes the changes older than `age` that every durable consumer (activity) has read: one a consumer has
    /// not read stays, however old, so that a consumer that was stopped for a day still misses nothing. The consumers'
    /// lowest oldest running transaction (every change below it taken) is read once, not per row: a position can be
    /// long.
    static func prune(olderThan age: Duration) -> PostgresQuery {
        let seconds = Double(age.components.seconds)
        return """
            DELETE FROM changes c WHERE created_at < now() - make_interval(secs => \(seconds))
              AND c.xid < coalesce(
                (SELECT min(split_part(split_part(position, '|', 1), ':', 1)::xid8) FROM change_consumers), '18446744073709551615'::xid8)
            """
    }

    /// Reads and applies every change committed since the last read.
    private func read() async throws {
        let lastRead = state.withLock { $0.lastRead }
        // Rows older than the table keeps may be gone: what this instance holds cannot be brought up to date.
        let safe = options.changeRetention - .seconds(max(5, options.changeRetention.components.seconds / 5))
        if ContinuousClock.now - lastRead > safe {
            try await start()
            logger.warning(
                "the change stream was out of reach longer than changes are kept; caches emptied, live clients told to reload",
                metadata: ["since": "\(ContinuousClock.now - lastRead)"])
            caches.apply(.changesMissed)
            events?.publish(.changesMissed)
            return
        }
        // Every committed change not read yet, in seq order (`PostgresStore.readLog`): changes to one post commit in
        // seq order (each took its seq holding the post's lock), so any of them visible now comes with every
        // earlier one.
        while true {
            let position = state.withLock { $0.position }
            let limit = options.changeReadBatch
            let (read, next) = try await client.leased(timeout: options.operationTimeout) { [logger] connection in
                try await PostgresStore.readLog(connection, from: position, limit: limit, logger: logger)
            }
            var records: [ChangeRecord] = []
            for row in read.rows {
                guard let record = ChangeRecord(payload: row.payload) else {
                    logger.error("unreadable change in the change table", metadata: ["payload": "\(row.payload)"])
                    continue
                }
                records.append(record)
            }
            let audiences = try await audiences(of: Set(records.compactMap(\.audienceAuthor)))
            for record in records {
                let audience = record.audienceAuthor.map { [$0] + (audiences[$0] ?? []) } ?? []
                guard let event = record.event(audience: audience, hiding: caches.hiddenUsers.names) else {
                    logger.error(
                        "change of an unknown shape in the change table", metadata: ["kind": "\(record.kind)"])
                    continue
                }
                caches.apply(event)
                events?.publish(event)
            }
            state.withLock {
                $0.position = next
                $0.lastRead = .now
            }
            if !read.more { break }
        }
        caches.trust(for: options.staleness)
    }

    /// Each author's followers: with the author, the home timelines a new or deleted post of theirs enters or leaves.
    private func audiences(of authors: Set<Int64>) async throws -> [Int64: [Int64]] {
        guard !authors.isEmpty else { return [:] }
        var audiences: [Int64: [Int64]] = [:]
        let rows = try await query(
            "SELECT followee_id, follower_id FROM follows WHERE followee_id = ANY(\(Array(authors))::bigint[])")
        for row in rows {
            let (author, follower) = try row.decode((Int64, Int64).self)
            audiences[author, default: []].append(follower)
        }
        return audiences
    }

    /// Rings on every other instance's commit, reconnecting when the listening connection is lost.
    private func listen() async {
        var failing = false
        while !Task.isCancelled {
            do {
                try await client.withOpenConnection { connection in
                    let notifications = try await abandoning(after: options.operationTimeout) {
                        try await connection.listen(Self.channel)
                    }
                    if failing {
                        logger.notice("listening for changes again")
                        failing = false
                    }
                    wake.yield()
                    for try await _ in notifications { wake.yield() }
                }
            } catch {
                if state.withLock({ $0.stopped }) { return }
                if !failing, !Task.isCancelled {
                    logger.warning(
                        "lost the connection that listens for changes; reading them every poll interval until it is back",
                        metadata: ["error": "\(String(reflecting: error))"])
                    failing = true
                }
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}

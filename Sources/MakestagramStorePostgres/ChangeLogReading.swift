import Foundation
import Logging
import MakestagramStore
import PostgresNIO

/// Which transactions had committed when a snapshot was taken, as `pg_current_snapshot()` writes it
/// (`xmin:xmax:xip,…`): every one below `xmin`, none from `xmax` on, and between them all but those `running`.
struct LogSnapshot: Equatable, Sendable {
    var xmin: UInt64
    var xmax: UInt64
    var running: [UInt64]

    init(xmin: UInt64, xmax: UInt64, running: [UInt64] = []) {
        self.xmin = xmin
        self.xmax = xmax
        self.running = running
    }

    init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let xmin = UInt64(parts[0]), let xmax = UInt64(parts[1]) else { return nil }
        var running: [UInt64] = []
        for item in parts[2].split(separator: ",") {
            guard let xid = UInt64(item) else { return nil }
            running.append(xid)
        }
        self.init(xmin: xmin, xmax: xmax, running: running)
    }

    var text: String { "\(xmin):\(xmax):" + running.map(String.init).joined(separator: ",") }

    /// Whether transaction `xid` had ended when the snapshot was taken (its changes, if it committed, visible).
    func sees(_ xid: UInt64) -> Bool { xid < xmin || (xid < xmax && !running.contains(xid)) }

    /// `running` as text, for a query (`::text[]::xid8[]`).
    var runningText: [String] { running.map(String.init) }
}

/// Where a reader stands in the change log: every change visible in `base` has been taken, and, when its last read
/// stopped at its limit, every change visible in `cut.snapshot` up to seq `cut.seq` too. Stored as text
/// (`change_consumers.position` for a durable consumer): `base`, or `base|cut snapshot|cut seq`.
///
/// Changes commit in `seq` order per post or user (each change takes its seq holding that row's lock), but not
/// overall: a change with a lower seq can commit after one with a higher, which is why a plain "last seq" would lose
/// it. A snapshot does not: what can still appear after it is the changes of the transactions it saw running and of
/// those that began after it, found through the index on `xid` however long one of them stays open, and however far
/// behind the reader is (a read cut by its limit goes on from its seq).
struct LogPosition: Equatable, Sendable {
    struct Cut: Equatable, Sendable {
        var snapshot: LogSnapshot
        var seq: Int64
    }

    var base: LogSnapshot
    var cut: Cut?

    init(base: LogSnapshot, cut: Cut? = nil) {
        self.base = base
        self.cut = cut
    }

    /// Nil for text that is not a position of this form (a ``ConsumerPosition`` of an earlier version).
    init?(_ text: String) {
        let parts = text.split(separator: "|", omittingEmptySubsequences: false)
        guard let base = parts.first.flatMap({ LogSnapshot($0) }) else { return nil }
        switch parts.count {
        case 1: self.init(base: base)
        case 3:
            guard let snapshot = LogSnapshot(parts[1]), let seq = Int64(parts[2]) else { return nil }
            self.init(base: base, cut: Cut(snapshot: snapshot, seq: seq))
        default: return nil
        }
    }

    var text: String { base.text + (cut.map { "|\($0.snapshot.text)|\($0.seq)" } ?? "") }
}

/// One read of the change log from a reader's position: the changes taken, in seq order, and where the reader stands
/// after them.
struct ChangeLogRead {
    struct Row {
        let seq: Int64
        let xid: UInt64
        let payload: String
        /// When the change was logged, in seconds since 1970.
        let at: Double
    }

    var rows: [Row]
    /// Whether more changes were waiting than the read took.
    var more: Bool
    /// The position after the read, as stored.
    var next: String
}

extension PostgresStore {
    /// The current snapshot, as the position of a reader that starts from now.
    static func currentPosition(_ connection: PostgresConnection, logger: Logger) async throws -> LogPosition {
        let text = try await connection.query("SELECT pg_current_snapshot()::text", logger: logger).collect()[0]
            .decode(String.self)
        guard let snapshot = LogSnapshot(text) else { throw StoreError.database("unreadable snapshot \(text)") }
        return LogPosition(base: snapshot)
    }

    /// Reads at most `limit` committed changes a reader at `position` has not taken (more when changes committed late
    /// below its cut), in seq order, and where it stands after them: the one way the log is read, by the durable
    /// consumers and by the caches' stream alike.
    static func readLog(
        _ connection: PostgresConnection, from position: LogPosition, limit: Int, logger: Logger
    ) async throws -> (read: ChangeLogRead, next: LogPosition) {
        let cutSeq = position.cut?.seq ?? -1
        let base = (xmax: String(position.base.xmax), running: position.base.runningText)
        let query: PostgresQuery
        if let cut = position.cut {
            // Below the cut: the changes of the transactions the cut saw running that have committed since (any
            // other change there was visible to the cut, or to the base, and taken). Above it: every change the base
            // did not see, in seq order from the cut (the primary key's order), one more than the limit to know
            // whether all were taken.
            query = """
                WITH w AS (SELECT pg_current_snapshot()::text AS s),
                c AS (
                  (SELECT seq, xid, payload, created_at FROM changes
                    WHERE seq <= \(cut.seq) AND xid = ANY(\(cut.snapshot.runningText)::text[]::xid8[]))
                  UNION ALL
                  (SELECT seq, xid, payload, created_at FROM changes
                    WHERE seq > \(cut.seq) AND (xid >= \(base.xmax)::text::xid8 OR xid = ANY(\(base.running)::text[]::xid8[]))
                    ORDER BY seq LIMIT \(limit + 1))
                )
                SELECT w.s, c.seq, c.xid::text, c.payload, extract(epoch FROM c.created_at)::float8
                FROM w LEFT JOIN c ON true ORDER BY c.seq
                """
        } else {
            // Every change the base did not see, found through the index on `xid` (in seq order the primary key
            // would walk the whole log to find them), then in seq order, one more than the limit.
            query = """
                WITH w AS (SELECT pg_current_snapshot()::text AS s),
                unseen AS MATERIALIZED (
                  SELECT seq, xid, payload, created_at FROM changes
                  WHERE xid >= \(base.xmax)::text::xid8 OR xid = ANY(\(base.running)::text[]::xid8[])
                ),
                c AS (SELECT * FROM unseen ORDER BY seq LIMIT \(limit + 1))
                SELECT w.s, c.seq, c.xid::text, c.payload, extract(epoch FROM c.created_at)::float8
                FROM w LEFT JOIN c ON true ORDER BY c.seq
                """
        }
        let rows = try await connection.query(query, logger: logger).collect()
        var now: LogSnapshot?
        var taken: [ChangeLogRead.Row] = []
        var above = 0
        var more = false
        for row in rows {
            let (snapshot, seq, xid, payload, at) = try row.decode((String, Int64?, String?, String?, Double?).self)
            now = now ?? LogSnapshot(snapshot)
            guard let seq, let xid = xid.flatMap(UInt64.init), let payload, let at else { continue }
            if seq > cutSeq {
                guard above < limit else {
                    more = true
                    break
                }
                above += 1
            }
            taken.append(.init(seq: seq, xid: xid, payload: payload, at: at))
        }
        guard let now else { throw StoreError.database("the change log read answered no snapshot") }
        // All taken: everything the snapshot sees has been. Otherwise the base stays, and the cut says how far the
        // read got among what this snapshot sees.
        let next =
            more
            ? LogPosition(base: position.base, cut: .init(snapshot: now, seq: taken.last?.seq ?? cutSeq))
            : LogPosition(base: now)
        return (ChangeLogRead(rows: taken, more: more, next: next.text), next)
    }
}

// MARK: Positions of the earlier form

/// Where a durable consumer stood in the change log before ``LogPosition``, as `change_consumers.position` may still
/// keep it: the oldest transaction that was still running when it last read (every change of an older one has been
/// read), and the changes of newer ones it has applied already (`xid|seq:xid,seq:xid`). Such a position is read the
/// way it was written (``PostgresStore/readLog(_:from:lastSeq:limit:logger:)``) until a read takes everything
/// visible, which leaves a ``LogPosition``. Its set of changes applied grows for as long as a transaction stays open.
///
/// Its floor (`|floor` or `|floor:seq:xid`) is a seq below which no change is left to apply, so that a read walks
/// the log from there in seq order and stops after a batch, whatever the backlog: without it, every read of a consumer
/// far behind sorted all the changes above the watermark (about 550 changes a second on a backlog of 550,000). A seq
/// may belong to a transaction still running, so the floor only passes what is certainly over: `pending` is the
/// sequence's last value read before some snapshot (every seq up to it belonged by then to a transaction with an
/// xid, see the schema's v35) and that snapshot's `xmax`; once a snapshot's oldest running transaction is at or
/// above that xmax, every change up to that seq has committed or never will, and the floor may move up to it.
struct ConsumerPosition: Equatable {
    struct Pending: Equatable {
        var seq: Int64
        var xmax: UInt64
    }

    var watermark: UInt64
    var applied: [Int64: UInt64]
    var floor: Int64 = 0
    var pending: Pending?

    init(watermark: UInt64, applied: [Int64: UInt64] = [:], floor: Int64 = 0, pending: Pending? = nil) {
        self.watermark = watermark
        self.applied = applied
        self.floor = floor
        self.pending = pending
    }

    init?(_ text: String) {
        let parts = text.split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count <= 3, let watermark = parts.first.flatMap({ UInt64($0) }) else { return nil }
        self.watermark = watermark
        applied = [:]
        if parts.count >= 2 {
            for item in parts[1].split(separator: ",") {
                let pair = item.split(separator: ":")
                guard pair.count == 2, let seq = Int64(pair[0]), let xid = UInt64(pair[1]) else { return nil }
                applied[seq] = xid
            }
        }
        if parts.count == 3 {
            let fields = parts[2].split(separator: ":")
            guard let floor = fields.first.flatMap({ Int64($0) }) else { return nil }
            self.floor = floor
            if fields.count == 3 {
                guard let seq = Int64(fields[1]), let xmax = UInt64(fields[2]) else { return nil }
                pending = Pending(seq: seq, xmax: xmax)
            } else if fields.count != 1 {
                return nil
            }
        }
    }

    var text: String {
        "\(watermark)|" + applied.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")
            + "|\(floor)" + (pending.map { ":\($0.seq):\($0.xmax)" } ?? "")
    }
}

extension PostgresStore {
    /// Reads at most `limit` committed changes a durable consumer at a position of the earlier form has not taken,
    /// in seq order, and where it stands after them (a ``LogPosition`` once it has taken everything visible).
    /// `lastSeq` is the change sequence's last value, read in an earlier statement.
    static func readLog(
        _ connection: PostgresConnection, from position: ConsumerPosition, lastSeq: Int64, limit: Int, logger: Logger
    ) async throws -> ChangeLogRead {
        precondition(limit > 0)
        // Every committed change of a transaction at or above the watermark not taken yet, in seq order from the
        // floor; one more than the limit, to know whether all were taken.
        let rows = try await connection.query(
            """
            WITH w AS (
              SELECT pg_snapshot_xmin(s) AS xmin, pg_snapshot_xmax(s) AS xmax, s::text AS snapshot
              FROM pg_current_snapshot() s),
            c AS (
              SELECT seq, xid, payload, created_at FROM changes
              WHERE seq >= \(position.floor) AND xid >= \(String(position.watermark))::text::xid8
                AND NOT seq = ANY(\(Array(position.applied.keys))::bigint[])
              ORDER BY seq LIMIT \(limit + 1)
            )
            SELECT w.xmin::text, w.xmax::text, c.seq, c.xid::text, c.payload, extract(epoch FROM c.created_at)::float8,
              w.snapshot
            FROM w LEFT JOIN c ON true ORDER BY c.seq
            """, logger: logger
        ).collect()
        var next = position
        var xmin = position.watermark
        var xmax = position.watermark
        var taken: [ChangeLogRead.Row] = []
        var firstLeft: Int64?
        var snapshot: LogSnapshot?
        for row in rows {
            let (snapshotMin, snapshotMax, seq, xid, payload, at, snapshotText) = try row.decode(
                (String, String, Int64?, String?, String?, Double?, String).self)
            snapshot = snapshot ?? LogSnapshot(snapshotText)
            xmin = UInt64(snapshotMin) ?? xmin
            xmax = UInt64(snapshotMax) ?? xmax
            guard let seq, let xid = xid.flatMap(UInt64.init), let payload, let at else { continue }
            guard taken.count < limit else {
                firstLeft = firstLeft ?? seq
                continue
            }
            taken.append(.init(seq: seq, xid: xid, payload: payload, at: at))
            next.applied[seq] = xid
        }
        if firstLeft == nil {
            // Everything visible was taken: below the snapshot's oldest running transaction nothing can appear.
            next.watermark = xmin
        } else {
            // More is waiting: the watermark still moves up to the oldest transaction with a change not taken
            // (or still running), so that the set of changes taken above it stays about one batch, whatever
            // the backlog (otherwise each read would filter an ever longer list).
            let oldest = try await connection.query(
                """
                SELECT min(xid)::text FROM changes WHERE xid >= \(String(position.watermark))::text::xid8
                  AND seq >= \(position.floor) AND NOT seq = ANY(\(Array(next.applied.keys))::bigint[])
                """, logger: logger
            ).collect().first?.decode(String?.self).flatMap { UInt64($0) }
            next.watermark = max(position.watermark, min(xmin, oldest ?? xmin))
        }
        // The floor: up to the first change left (or past every seq drawn before the pending snapshot) once
        // every transaction that could still hold a seq up to the pending one has ended.
        if let pending = position.pending, xmin >= pending.xmax {
            next.floor = max(position.floor, min(firstLeft ?? .max, pending.seq + 1))
            next.pending = nil
        }
        if next.pending == nil { next.pending = .init(seq: lastSeq, xmax: xmax) }
        // What the watermark or the floor leaves behind is never read again (a transaction with more changes
        // than a batch would otherwise keep them all listed until its last one is read).
        next.applied = next.applied.filter { $0.value >= next.watermark && $0.key >= next.floor }
        // Everything visible taken: from here on the position is the snapshot's.
        if firstLeft == nil, let snapshot {
            return ChangeLogRead(rows: taken, more: false, next: LogPosition(base: snapshot).text)
        }
        return ChangeLogRead(rows: taken, more: firstLeft != nil, next: next.text)
    }
}

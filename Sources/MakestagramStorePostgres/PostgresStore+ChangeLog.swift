import Foundation
import MakestagramAPI
import MakestagramStore
import PostgresNIO

/// Where a durable consumer stands in the change log, as `change_consumers.position` keeps it: the oldest
/// transaction that was still running when it last read (every change of an older one has been read), and the
/// changes of newer ones it has applied already (`xid|seq:xid,seq:xid`). Changes commit in `seq` order per post or
/// user, but not overall: a change with a lower `seq` can commit after one with a higher, which is why a plain
/// "last seq" would lose it (``ChangeStream`` reads the log the same way for the caches).
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

/// One read of the change log from a reader's position (``PostgresStore/readLog(_:from:lastSeq:limit:logger:)``):
/// the changes taken, in seq order, and where the reader stands after them.
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
    var next: ConsumerPosition
    /// The change sequence's last value, read after the read's snapshot was taken: a `lastSeq` for the next read.
    var lastSeq: Int64
}

extension PostgresStore {
    /// Reads at most `limit` committed changes a reader at `position` has not taken, in seq order, and where it
    /// stands after them: the one way the log is read, by the durable consumers and by the caches' stream alike.
    /// `lastSeq` is the change sequence's last value read before this call's statement: in an earlier statement, or
    /// the `lastSeq` the reader's previous read answered.
    static func readLog(
        _ connection: PostgresConnection, from position: ConsumerPosition, lastSeq: Int64, limit: Int, logger: Logger
    ) async throws -> ChangeLogRead {
        // Every committed change of a transaction at or above the watermark not taken yet, in seq order from the
        // floor; one more than the limit, to know whether all were taken.
        let rows = try await connection.query(
            """
            WITH w AS (SELECT pg_snapshot_xmin(s) AS xmin, pg_snapshot_xmax(s) AS xmax FROM pg_current_snapshot() s),
            c AS (
              SELECT seq, xid, payload, created_at FROM changes
              WHERE seq >= \(position.floor) AND xid >= \(String(position.watermark))::text::xid8
                AND NOT seq = ANY(\(Array(position.applied.keys))::bigint[])
              ORDER BY seq LIMIT \(limit + 1)
            )
            SELECT w.xmin::text, w.xmax::text, c.seq, c.xid::text, c.payload, extract(epoch FROM c.created_at)::float8,
              (SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM change_seq)
            FROM w LEFT JOIN c ON true ORDER BY c.seq
            """, logger: logger
        ).collect()
        var next = position
        var xmin = position.watermark
        var xmax = position.watermark
        var taken: [ChangeLogRead.Row] = []
        var firstLeft: Int64?
        var seqAfter = lastSeq
        for row in rows {
            let (snapshotMin, snapshotMax, seq, xid, payload, at, sequence) = try row.decode(
                (String, String, Int64?, String?, String?, Double?, Int64).self)
            seqAfter = sequence
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
        return ChangeLogRead(rows: taken, more: firstLeft != nil, next: next, lastSeq: seqAfter)
    }

    public func changes(for consumer: String, limit: Int) async throws -> ChangeBatch {
        try await read { [logger] connection in
            // The sequence's last value is read before the snapshot of the read below is taken: see `pending`.
            guard
                let (text, lastSeq) = try await connection.query(
                    """
                    SELECT position, (SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM change_seq)
                    FROM change_consumers WHERE name = \(consumer)
                    """, logger: logger
                ).collect().first?.decode((String, Int64).self), let position = ConsumerPosition(text)
            else { throw StoreError.notFound("change consumer \(consumer)") }
            let read = try await Self.readLog(
                connection, from: position, lastSeq: lastSeq, limit: limit, logger: logger)
            var changes: [LoggedChange] = []
            for row in read.rows {
                if let record = ChangeRecord(payload: row.payload),
                    let event = record.event(audience: record.audienceAuthor.map { [$0] } ?? [])
                {
                    changes.append(LoggedChange(event: event, at: Date(timeIntervalSince1970: row.at)))
                }
            }
            // The watermark moves on by itself as transactions end: a batch that read nothing is not worth a write.
            // `from` is the position as stored, which the move compares.
            return ChangeBatch(changes: changes, read: read.rows.count, from: text, to: read.next.text)
        }
    }

    public func applyActivity(_ writes: [ActivityWrite], consumer: String, batch: ChangeBatch) async throws -> Bool {
        try await write { [logger] connection, changes in
            guard try await Self.moveConsumer(connection, consumer, over: batch, logger: logger) else { return false }
            var touched = Set<Int64>()
            for step in ActivityWrite.coalesced(writes) {
                switch step {
                case .bySource(let remove, let add):
                    touched.formUnion(try await Self.apply(remove: remove, add: add, connection, logger: logger))
                case .other(let write):
                    touched.formUnion(try await Self.apply(write, connection, logger: logger))
                }
            }
            if !touched.isEmpty {
                for row in try await connection.query(
                    "SELECT id, activity_unread FROM users WHERE id = ANY(\(touched.sorted())::bigint[]) ORDER BY id",
                    logger: logger
                ).collect() {
                    let (user, unread) = try row.decode((Int64, Int).self)
                    changes.publish(.activityChanged(user: user, unreadCount: unread))
                }
            }
            return true
        }
    }

    /// Moves durable consumer `consumer` from `batch.from` to `batch.to` in the current transaction; false when it no
    /// longer stands at `batch.from` (another instance applied the batch first).
    static func moveConsumer(
        _ connection: PostgresConnection, _ consumer: String, over batch: ChangeBatch, logger: Logger
    )
        async throws -> Bool
    {
        try await !connection.query(
            """
            UPDATE change_consumers SET position = \(batch.to)
            WHERE name = \(consumer) AND position = \(batch.from) RETURNING 1
            """, logger: logger
        ).collect().isEmpty
    }

    /// Withdraws the entries of `remove` and adds `add` (distinct sources) in two statements, in the current
    /// transaction; answers the users whose activity changed.
    static func apply(remove: [String], add: [ActivityEntry], _ connection: PostgresConnection, logger: Logger)
        async throws -> [Int64]
    {
        var touched: [Int64] = []
        if !remove.isEmpty {
            for row in try await connection.query(
                "DELETE FROM activity WHERE source = ANY(\(remove)::text[]) RETURNING recipient_id", logger: logger
            ).collect() {
                touched.append(try row.decode(Int64.self))
            }
        }
        if !add.isEmpty {
            // Arrays cannot hold NULL here: 0 stands for no post or comment (IDs start at 1). Entries are inserted in
            // their order: an entry's ID orders the activity list.
            let recipients = add.map(\.recipient)
            let actors = add.map(\.actor)
            let kinds = add.map(\.kind.rawValue)
            let posts = add.map { $0.post ?? 0 }
            let comments = add.map { $0.comment ?? 0 }
            let sources = add.map(\.source)
            let groups = add.map(\.group)
            let unread = add.map { $0.unread ? 1 : 0 }
            let created = add.map(\.createdAt.timeIntervalSince1970)
            for row in try await connection.query(
                """
                INSERT INTO activity (recipient_id, actor_id, kind, post_id, comment_id, source, group_key, unread,
                  created_at)
                SELECT e.recipient, e.actor, e.kind, NULLIF(e.post, 0), NULLIF(e.comment, 0), e.source, e.grp,
                  e.unread, e.created
                FROM unnest(\(recipients)::bigint[], \(actors)::bigint[], \(kinds)::text[], \(posts)::bigint[],
                  \(comments)::bigint[], \(sources)::text[], \(groups)::text[], \(unread)::int[],
                  \(created)::float8[]) WITH ORDINALITY
                  AS e(recipient, actor, kind, post, comment, source, grp, unread, created, n)
                WHERE EXISTS (SELECT 1 FROM users WHERE id = e.recipient)
                  AND NOT EXISTS (SELECT 1 FROM mutes WHERE muter_id = e.recipient AND muted_id = e.actor)
                  AND \(unescaped: Visibility.unblocked(viewer: "e.recipient", user: "e.actor"))
                ORDER BY e.n
                ON CONFLICT (source) DO NOTHING RETURNING recipient_id
                """, logger: logger
            ).collect() {
                touched.append(try row.decode(Int64.self))
            }
        }
        return touched
    }

    /// Applies one activity write in the current transaction; answers the users whose activity it changed.
    static func apply(_ write: ActivityWrite, _ connection: PostgresConnection, logger: Logger) async throws
        -> [Int64]
    {
        let rows: [PostgresRow]
        switch write {
        case .add(let entry):
            rows = try await connection.query(
                """
                INSERT INTO activity (recipient_id, actor_id, kind, post_id, comment_id, source, group_key, unread,
                  created_at)
                SELECT \(entry.recipient), \(entry.actor), \(entry.kind.rawValue), \(entry.post), \(entry.comment),
                  \(entry.source), \(entry.group), \(entry.unread ? 1 : 0), \(entry.createdAt.timeIntervalSince1970)
                WHERE EXISTS (SELECT 1 FROM users WHERE id = \(entry.recipient))
                  AND NOT EXISTS (
                    SELECT 1 FROM mutes WHERE muter_id = \(entry.recipient) AND muted_id = \(entry.actor))
                  AND \(unescaped: Visibility.unblocked(viewer: String(entry.recipient), user: String(entry.actor)))
                ON CONFLICT (source) DO NOTHING RETURNING recipient_id, unread
                """, logger: logger
            ).collect()
        case .remove(let source):
            rows = try await connection.query(
                "DELETE FROM activity WHERE source = \(source) RETURNING recipient_id, unread", logger: logger
            ).collect()
        case .removePost(let post):
            rows = try await connection.query(
                "DELETE FROM activity WHERE post_id = \(post) RETURNING recipient_id, unread", logger: logger
            ).collect()
        case .removeComment(let comment):
            rows = try await connection.query(
                "DELETE FROM activity WHERE comment_id = \(comment) RETURNING recipient_id, unread", logger: logger
            ).collect()
        case .removeActor(let actor, nil):
            rows = try await connection.query(
                "DELETE FROM activity WHERE actor_id = \(actor) RETURNING recipient_id, unread", logger: logger
            ).collect()
        case .removeActor(let actor, let recipient?):
            rows = try await connection.query(
                """
                DELETE FROM activity WHERE actor_id = \(actor) AND recipient_id = \(recipient)
                RETURNING recipient_id, unread
                """, logger: logger
            ).collect()
        case .keepPostMentions(let post, let sources):
            rows = try await connection.query(
                """
                DELETE FROM activity WHERE post_id = \(post) AND kind = 'mention' AND comment_id IS NULL
                  AND NOT source = ANY(\(sources.sorted())::text[])
                RETURNING recipient_id, unread
                """, logger: logger
            ).collect()
        }
        return try rows.map { row in
            let (recipient, _) = try row.decode((Int64, Int).self)
            return recipient
        }
    }

    public func postAuthors(_ ids: [Int64]) async throws -> [Int64: Int64] {
        guard !ids.isEmpty else { return [:] }
        return try await read { [logger] connection in
            var authors: [Int64: Int64] = [:]
            for row in try await connection.query(
                "SELECT id, author_id FROM posts WHERE id = ANY(\(ids)::bigint[])", logger: logger
            ).collect() {
                let (post, author) = try row.decode((Int64, Int64).self)
                authors[post] = author
            }
            return authors
        }
    }

    public func userIDs(usernames: Set<String>) async throws -> [String: Int64] {
        guard !usernames.isEmpty else { return [:] }
        return try await read { [logger] connection in
            var ids: [String: Int64] = [:]
            for row in try await connection.query(
                """
                SELECT username, id FROM users WHERE username = ANY(\(usernames.sorted())::text[]) AND status = 'active'
                """, logger: logger
            ).collect() {
                let (name, id) = try row.decode((String, Int64).self)
                ids[name] = id
            }
            return ids
        }
    }

    public func actions(of user: Int64) async throws -> UserActions {
        try await read { [logger] connection in
            var likes: [UserActions.Like] = []
            for row in try await connection.query(
                """
                SELECT l.post_id, p.author_id, l.created_at FROM likes l JOIN posts p ON p.id = l.post_id
                WHERE l.user_id = \(user)
                """, logger: logger
            ).collect() {
                let (post, author, at) = try row.decode((Int64, Int64, Double).self)
                likes.append(UserActions.Like(post: post, author: author, at: Date(timeIntervalSince1970: at)))
            }
            var comments: [(comment: Comment, postAuthor: Int64)] = []
            for row in try await connection.query(
                """
                SELECT \(unescaped: PostRows.commentColumns), p.author_id FROM comments c
                JOIN users u ON u.id = c.author_id JOIN posts p ON p.id = c.post_id WHERE c.author_id = \(user)
                """, logger: logger
            ).collect() {
                let (id, post, text, at, author, username, displayName, avatar, postAuthor) = try row.decode(
                    (Int64, Int64, String, Double, Int64, String, String, String?, Int64).self)
                let comment = Comment(
                    id: id, postId: post,
                    author: UserSummary(
                        id: author, username: username, displayName: displayName,
                        avatarURL: avatar.map(MediaPath.url(for:))),
                    text: text, createdAt: Date(timeIntervalSince1970: at))
                comments.append((comment, postAuthor))
            }
            var follows: [UserActions.Follow] = []
            for row in try await connection.query(
                "SELECT followee_id, created_at FROM follows WHERE follower_id = \(user)", logger: logger
            ).collect() {
                let (followee, at) = try row.decode((Int64, Double).self)
                follows.append(UserActions.Follow(followee: followee, at: Date(timeIntervalSince1970: at)))
            }
            var posts: [(id: Int64, caption: String, at: Date)] = []
            for row in try await connection.query(
                "SELECT id, caption, created_at FROM posts WHERE author_id = \(user)", logger: logger
            ).collect() {
                let (id, caption, at) = try row.decode((Int64, String, Double).self)
                posts.append((id, caption, Date(timeIntervalSince1970: at)))
            }
            return UserActions(likes: likes, comments: comments, follows: follows, posts: posts)
        }
    }
}

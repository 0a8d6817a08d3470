import Foundation
import GRDB
import MakestagramAPI
import MakestagramStore

extension SQLiteStore {
    public func actorKey(user: Int64?) async throws -> Data? {
        try await read { db in
            if let user {
                return try Data.fetchOne(
                    db, sql: "SELECT private_key FROM actor_keys WHERE user_id = ?", arguments: [user])
            }
            return try Data.fetchOne(db, sql: "SELECT value FROM server_keys WHERE name = 'instance-actor'")
        }
    }

    public func saveActorKey(user: Int64?, key: Data) async throws -> Data {
        try await write { db in
            if let user {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO actor_keys (user_id, private_key) VALUES (?, ?)",
                    arguments: [user, key])
                return try Data.fetchOne(
                    db, sql: "SELECT private_key FROM actor_keys WHERE user_id = ?", arguments: [user])
                    ?? key
            }
            try db.execute(
                sql: "INSERT OR IGNORE INTO server_keys (name, value) VALUES ('instance-actor', ?)", arguments: [key])
            return try Data.fetchOne(db, sql: "SELECT value FROM server_keys WHERE name = 'instance-actor'") ?? key
        }
    }

    public func replaceActorKey(user: Int64, key: Data) async throws {
        try await write { db in
            guard
                try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT 1 FROM users u WHERE u.id = ? AND u.status = 'active'
                          AND NOT EXISTS (SELECT 1 FROM remote_actors r WHERE r.user_id = u.id)
                        """, arguments: [user]) != nil,
                let profile = try Self.profile(db, column: "u.id", value: user, viewer: user)
            else { throw StoreError.notFound("user") }
            try db.execute(
                sql: """
                    INSERT INTO actor_keys (user_id, private_key) VALUES (?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET private_key = excluded.private_key
                    """, arguments: [user, key])
            try publishOnCommit(db, .profileChanged(user: profile.summary))
        }
    }

    public func saveRemoteActor(_ document: RemoteActorDocument) async throws -> RemoteActor {
        try await write { db in
            let key = PeopleSearch.key(username: document.username, displayName: document.displayName)
            let existing = try Int64.fetchOne(
                db, sql: "SELECT id FROM users WHERE username = ?", arguments: [document.username])
            let id: Int64
            if let existing {
                id = existing
                let old = try Row.fetchOne(
                    db, sql: "SELECT display_name, bio, is_private FROM users WHERE id = ?", arguments: [id])
                // Private while posts for their followers only are kept (``followersOnlyRemotePosts(of:)``).
                let keepsFollowersOnly =
                    try Bool.fetchOne(db, sql: Self.keepsFollowersOnlyPosts, arguments: [id]) ?? false
                let isPrivate = document.isPrivate || keepsFollowersOnly
                try db.execute(
                    sql: "UPDATE users SET display_name = ?, bio = ?, search_key = ?, is_private = ? WHERE id = ?",
                    arguments: [document.displayName, document.bio, key, isPrivate, id])
                if old?["display_name"] != document.displayName || old?["bio"] != document.bio,
                    let profile = try Self.profile(db, column: "u.id", value: id, viewer: id)
                {
                    try publishOnCommit(db, .profileChanged(user: profile.summary))
                }
                if let wasPrivate = old?["is_private"] as Bool?, wasPrivate != isPrivate {
                    try publishOnCommit(db, .privacyChanged(user: id, isPrivate: isPrivate))
                }
            } else {
                try db.execute(
                    sql: """
                        INSERT INTO users (username, display_name, bio, password_hash, created_at, search_key, is_private)
                        VALUES (?, ?, ?, '!', ?, ?, ?)
                        """,
                    arguments: [
                        document.username, document.displayName, document.bio, Self.now, key, document.isPrivate,
                    ])
                id = db.lastInsertedRowID
                if document.isPrivate { try publishOnCommit(db, .privacyChanged(user: id, isPrivate: true)) }
            }
            try db.execute(
                sql: """
                    INSERT INTO remote_actors
                      (user_id, uri, inbox, shared_inbox, key_id, public_key_pem, profile_url, fetched_at, icon_url)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET uri = excluded.uri, inbox = excluded.inbox,
                      shared_inbox = excluded.shared_inbox, key_id = excluded.key_id,
                      public_key_pem = excluded.public_key_pem, profile_url = excluded.profile_url,
                      fetched_at = excluded.fetched_at, icon_url = excluded.icon_url
                    """,
                arguments: [
                    id, document.uri, document.inbox, document.sharedInbox, document.keyID, document.publicKeyPEM,
                    document.profileURL, Self.now, document.iconURL,
                ])
            return RemoteActor(
                userID: id, username: document.username, uri: document.uri, inbox: document.inbox,
                sharedInbox: document.sharedInbox, keyID: document.keyID, publicKeyPEM: document.publicKeyPEM,
                profileURL: document.profileURL, iconURL: document.iconURL)
        }
    }

    public func remoteActor(uri: String) async throws -> RemoteActor? {
        try await read { db in try Self.remoteActor(db, column: "r.uri", value: uri) }
    }

    public func remoteActor(user: Int64) async throws -> RemoteActor? {
        try await read { db in try Self.remoteActor(db, column: "r.user_id", value: user) }
    }

    static func remoteActor(_ db: Database, column: String, value: any DatabaseValueConvertible) throws -> RemoteActor?
    {
        try Row.fetchOne(
            db,
            sql: """
                SELECT r.*, u.username FROM remote_actors r JOIN users u ON u.id = r.user_id
                WHERE \(column) = ? AND u.status = 'active'
                """, arguments: [value]
        ).map { row in
            RemoteActor(
                userID: row["user_id"], username: row["username"], uri: row["uri"], inbox: row["inbox"],
                sharedInbox: row["shared_inbox"], keyID: row["key_id"], publicKeyPEM: row["public_key_pem"],
                profileURL: row["profile_url"], iconURL: row["icon_url"])
        }
    }

    public func remoteUsers(onDomain domain: String) async throws -> [(id: Int64, username: String)] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT u.id, u.username FROM remote_actors r JOIN users u ON u.id = r.user_id
                    WHERE instr(u.username, ?) > 0 AND u.status <> 'deleting'
                    """, arguments: [domain]
            ).map { (id: $0["id"] as Int64, username: $0["username"] as String) }
        }.filter { user in
            DomainName.host(ofUsername: user.username).map { DomainName.covers(domain, host: $0) } ?? false
        }
    }

    static func remoteMedia(_ row: Row) -> RemoteMedia {
        RemoteMedia(
            id: row["id"], source: row["source"],
            files: (row["files"] as String).split(separator: " ").map(String.init),
            keptAt: Date(timeIntervalSince1970: row["kept_at"]), evicted: row["evicted"])
    }

    public func keptRemoteMedia() async throws -> [RemoteMedia] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM remote_media WHERE evicted = 0 ORDER BY kept_at, id").map(
                Self.remoteMedia)
        }
    }

    public func remoteMedia(file: String) async throws -> RemoteMedia? {
        try await read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT m.* FROM remote_media_files f JOIN remote_media m ON m.id = f.media_id WHERE f.file = ?
                    """, arguments: [file]
            ).map(Self.remoteMedia)
        }
    }

    public func markRemoteMedia(_ ids: [Int64], evicted: Bool) async throws {
        guard !ids.isEmpty else { return }
        let list = "[" + ids.map(String.init).joined(separator: ",") + "]"
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE remote_media SET evicted = ?, kept_at = CASE WHEN ? THEN kept_at ELSE ? END
                    WHERE id IN (SELECT value FROM json_each(?))
                    """, arguments: [evicted, evicted, Self.now, list])
        }
    }

    public func remoteFollowerInboxes(of user: Int64) async throws -> [String] {
        try await read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT coalesce(r.shared_inbox, r.inbox) FROM follows f
                    JOIN remote_actors r ON r.user_id = f.follower_id
                    JOIN users u ON u.id = r.user_id AND u.status = 'active'
                    WHERE f.followee_id = ? ORDER BY 1
                    """, arguments: [user])
        }
    }

    public func knownInboxes() async throws -> [String] {
        try await read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT coalesce(r.shared_inbox, r.inbox) FROM remote_actors r
                    JOIN users u ON u.id = r.user_id AND u.status = 'active' ORDER BY 1
                    """)
        }
    }

    public func sender(id: Int64) async throws -> (user: UserSummary, leaving: Bool)? {
        try await read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT id, username, display_name, status FROM users
                        WHERE id = ? AND status IN ('active', 'deleting')
                        """, arguments: [id])
            else { return nil }
            return (
                UserSummary(id: row["id"], username: row["username"], displayName: row["display_name"]),
                (row["status"] as String) == AccountStatus.deleting.rawValue
            )
        }
    }

    public func leavingUser(username: String) async throws -> Int64? {
        try await read { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT u.id FROM users u JOIN actor_keys k ON k.user_id = u.id
                    WHERE u.username = ? AND u.status = 'deleting' AND instr(u.username, '@') = 0
                    """, arguments: [username])
        }
    }

    public func localUsage() async throws -> (users: Int, posts: Int) {
        try await read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT count(*) AS users, coalesce(sum(post_count), 0) AS posts FROM users
                    WHERE status = 'active' AND instr(username, '@') = 0
                    """)
            return (row?["users"] ?? 0, row?["posts"] ?? 0)
        }
    }

    public func rememberInbound(_ activity: InboundActivity) async throws -> Bool {
        // Cached statements: a remote like or its undo writes one of these each.
        try await write { db in try Self.remember(activity, db) }
    }

    /// Remembers `activity` within the transaction of `db`; false when its id was remembered already.
    static func remember(_ activity: InboundActivity, _ db: Database) throws -> Bool {
        try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO inbound_activities (id, actor_id, kind, object_id, received_at)
                VALUES (?, ?, ?, ?, ?)
                """
        ).execute(arguments: [activity.id, activity.actor, activity.kind.rawValue, activity.object, Self.now])
        return db.changesCount > 0
    }

    public func addRemoteComment(postID: Int64, author: Int64, text: String, note: String) async throws -> Comment? {
        try await write { db in
            guard try Int64.fetchOne(db, sql: "SELECT 1 FROM inbound_activities WHERE id = ?", arguments: [note]) == nil
            else { return nil }
            let comment = try insertComment(db, postID: postID, author: author, text: text)
            _ = try Self.remember(
                InboundActivity(id: note, actor: author, kind: .comment, object: comment.id), db)
            return comment
        }
    }

    public func inbound(id: String) async throws -> InboundActivity? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM inbound_activities WHERE id = ?", arguments: [id]).flatMap { row in
                InboundActivity.Kind(rawValue: row["kind"]).map {
                    InboundActivity(id: row["id"], actor: row["actor_id"], kind: $0, object: row["object_id"])
                }
            }
        }
    }

    public func forgetInbound(id: String) async throws {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM inbound_activities WHERE id = ?").execute(arguments: [id])
        }
    }

    public func inboundFollow(actor: Int64, target: Int64) async throws -> String? {
        try await read { db in
            try String.fetchOne(
                db,
                sql: """
                    SELECT id FROM inbound_activities WHERE actor_id = ? AND kind = 'follow' AND object_id = ?
                    ORDER BY received_at DESC LIMIT 1
                    """, arguments: [actor, target])
        }
    }

    public func createRemotePost(fromUploads ids: [Int64], userID: Int64, caption: String, origin: RemotePostOrigin)
        async throws -> Post?
    {
        try await write { db in
            guard
                try Int64.fetchOne(db, sql: "SELECT post_id FROM remote_posts WHERE uri = ?", arguments: [origin.uri])
                    == nil
            else { return nil }
            if origin.followersOnly {
                // Shown only as a private account's posts are: refused once the author is not one.
                guard
                    try Bool.fetchOne(db, sql: "SELECT is_private FROM users WHERE id = ?", arguments: [userID]) == true
                else { throw StoreError.forbidden }
            }
            let post = try insertPost(
                db, fromUploads: ids, userID: userID, caption: caption, original: origin.url ?? origin.uri)
            try db.execute(
                sql: "INSERT INTO remote_posts (post_id, uri, url, followers_only) VALUES (?, ?, ?, ?)",
                arguments: [post.id, origin.uri, origin.url, origin.followersOnly])
            for photo in origin.photos {
                try db.execute(
                    sql: "INSERT INTO remote_media (post_id, source, files, kept_at) VALUES (?, ?, ?, ?)",
                    arguments: [post.id, photo.source, photo.files.joined(separator: " "), Self.now])
                let id = db.lastInsertedRowID
                for file in photo.files {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO remote_media_files (file, media_id) VALUES (?, ?)",
                        arguments: [file, id])
                }
            }
            return post
        }
    }

    /// Whether user `?` has posts of another server kept here for their followers only.
    static let keepsFollowersOnlyPosts = """
        SELECT EXISTS (
          SELECT 1 FROM posts p JOIN remote_posts r ON r.post_id = p.id WHERE p.author_id = ? AND r.followers_only = 1)
        """

    public func followersOnlyRemotePosts(of userID: Int64) async throws -> [Int64] {
        try await read { db in
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT p.id FROM posts p JOIN remote_posts r ON r.post_id = p.id
                    WHERE p.author_id = ? AND r.followers_only = 1 ORDER BY p.id
                    """, arguments: [userID])
        }
    }

    public func remotePost(uri: String) async throws -> Int64? {
        try await read { db in
            try Int64.fetchOne(db, sql: "SELECT post_id FROM remote_posts WHERE uri = ?", arguments: [uri])
        }
    }

    public func remotePosts(among posts: [Int64]) async throws -> Set<Int64> {
        guard !posts.isEmpty else { return [] }
        return try await read { db in
            Set(
                try Int64.fetchAll(
                    db, sql: "SELECT post_id FROM remote_posts WHERE post_id IN (SELECT value FROM json_each(?))",
                    arguments: [String(decoding: try JSONEncoder().encode(posts), as: UTF8.self)]))
        }
    }

    public func remotePostURIs(of posts: [Int64]) async throws -> [Int64: (uri: String, url: String?)] {
        guard !posts.isEmpty else { return [:] }
        return try await read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT post_id, uri, url FROM remote_posts WHERE post_id IN (SELECT value FROM json_each(?))",
                arguments: ["[" + posts.map(String.init).joined(separator: ",") + "]"])
            var found: [Int64: (uri: String, url: String?)] = [:]
            while let row = try rows.next() { found[row[0]] = (row[1], row[2]) }
            return found
        }
    }

    // MARK: Deliveries

    public func joinChangeLog(consumer: String) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO change_consumers (name, position)
                    VALUES (?, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'changes'), 0))
                    """, arguments: [consumer])
        }
    }

    public func leaveChangeLog(consumer: String) async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM change_consumers WHERE name = ?", arguments: [consumer])
        }
    }

    public func queueDeliveries(
        _ deliveries: [OutboundDelivery], farewells: [Int64], consumer: String, batch: ChangeBatch,
        taking take: DeliveryTake?
    ) async throws -> [QueuedDelivery]? {
        try await write { db in
            guard try Self.moveConsumer(db, consumer, over: batch) else { return nil }
            for user in farewells {
                try db.execute(sql: "DELETE FROM account_farewells WHERE user_id = ?", arguments: [user])
            }
            let now = Self.now
            var taken: [QueuedDelivery] = []
            for (index, delivery) in deliveries.enumerated() {
                // The first ones are taken: due when their lease ends, as if claimed (one attempt).
                let lease = take.flatMap { index < $0.limit ? $0.lease : nil }
                let due = lease.map { now + Double($0.components.seconds) } ?? now
                let attempts = lease == nil ? 0 : 1
                let id = try Int64.fetchOne(
                    db.cachedStatement(
                        sql: """
                            INSERT OR IGNORE INTO deliveries
                              (activity_id, inbox, sender_id, body, next_attempt, attempts, created_at)
                            VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id
                            """),
                    arguments: [
                        delivery.activityID, delivery.inbox, delivery.sender, delivery.body, due, attempts, now,
                    ])
                if lease != nil, let id { taken.append(QueuedDelivery(id: id, delivery: delivery, attempts: 1)) }
            }
            try Self.pruneChanges(db, upTo: batch)
            return taken
        }
    }

    public func claimDeliveries(limit: Int, lease: Duration) async throws -> [QueuedDelivery] {
        try await write { db in
            let now = Self.now
            let until = now + Double(lease.components.seconds)
            return try Row.fetchAll(
                db,
                sql: """
                    UPDATE deliveries SET next_attempt = ?, attempts = attempts + 1
                    WHERE id IN (
                      SELECT id FROM deliveries WHERE state = 'pending' AND next_attempt <= ?
                      ORDER BY next_attempt, id LIMIT ?)
                    RETURNING id, activity_id, inbox, sender_id, body, attempts
                    """, arguments: [until, now, limit]
            ).map { row in
                QueuedDelivery(
                    id: row["id"],
                    delivery: OutboundDelivery(
                        activityID: row["activity_id"], inbox: row["inbox"], sender: row["sender_id"],
                        body: row["body"]),
                    attempts: row["attempts"])
            }.sorted { $0.id < $1.id }
        }
    }

    public func finishDeliveries(_ outcomes: [(id: Int64, outcome: DeliveryOutcome)], servers: [ServerResult])
        async throws
    {
        try await write { db in
            let now = Self.now
            for result in servers {
                try db.cachedStatement(sql: result.answered ? Self.serverAnswered : Self.serverFailed)
                    .execute(arguments: result.answered ? [result.server, now] : [result.server, now, result.error])
            }
            for (id, outcome) in outcomes {
                switch outcome {
                case .delivered(let status):
                    try db.cachedStatement(
                        sql: """
                            UPDATE deliveries SET state = 'delivered', body = X'', last_status = ?, last_error = NULL,
                              finished_at = ?
                            WHERE id = ?
                            """
                    ).execute(arguments: [status, now, id])
                case .retry(let at, let status, let error):
                    try db.cachedStatement(
                        sql: "UPDATE deliveries SET next_attempt = ?, last_status = ?, last_error = ? WHERE id = ?"
                    ).execute(arguments: [at.timeIntervalSince1970, status, error, id])
                case .gaveUp(let status, let error):
                    try db.cachedStatement(
                        sql: """
                            UPDATE deliveries SET state = 'failed', body = X'', last_status = ?, last_error = ?,
                              finished_at = ?
                            WHERE id = ?
                            """
                    ).execute(arguments: [status, error, now, id])
                }
            }
        }
    }

    /// Upserts of a server's row: it answered (`server`, `now`), or it failed (`server`, `now`, `error`). The same
    /// text on PostgreSQL.
    static let serverAnswered = """
        INSERT INTO delivery_servers (server, last_delivered, failures) VALUES (?, ?, 0)
        ON CONFLICT (server) DO UPDATE SET last_delivered = excluded.last_delivered, failures = 0,
          failing_since = NULL, last_error = NULL
        """
    static let serverFailed = """
        INSERT INTO delivery_servers (server, last_failed, failing_since, failures, last_error)
        VALUES (?1, ?2, ?2, 1, ?3)
        ON CONFLICT (server) DO UPDATE SET last_failed = excluded.last_failed,
          failures = delivery_servers.failures + 1,
          failing_since = coalesce(delivery_servers.failing_since, excluded.failing_since),
          last_error = excluded.last_error
        """

    public func deliveryServers() async throws -> [ServerRecord] {
        @Sendable func date(_ value: Double?) -> Date? { value.map(Date.init(timeIntervalSince1970:)) }
        return try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM delivery_servers
                    ORDER BY failing_since IS NULL, failing_since, coalesce(last_delivered, last_failed) DESC
                    """
            ).map { row in
                ServerRecord(
                    server: row["server"], lastDelivered: date(row["last_delivered"]),
                    lastFailed: date(row["last_failed"]), failingSince: date(row["failing_since"]),
                    failures: row["failures"], lastError: row["last_error"])
            }
        }
    }

    public func heardFrom(server: String) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE delivery_servers SET failing_since = NULL, failures = 0 WHERE server = ?",
                arguments: [server])
        }
    }

    public func pendingDeliveries() async throws -> [(inbox: String, count: Int, next: Date)] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT inbox, count(*) AS n, min(next_attempt) AS next FROM deliveries WHERE state = 'pending'
                    GROUP BY inbox
                    """
            ).map { (inbox: $0["inbox"], count: $0["n"], next: Date(timeIntervalSince1970: $0["next"])) }
        }
    }

    public func retryDeliveries(inboxes: [String]) async throws -> Int {
        let list = String(decoding: try JSONEncoder().encode(inboxes), as: UTF8.self)
        return try await write { db in
            try db.execute(
                sql: """
                    UPDATE deliveries SET next_attempt = ? WHERE state = 'pending'
                      AND inbox IN (SELECT value FROM json_each(?)) AND next_attempt > ?
                    """, arguments: [Self.now, list, Self.now])
            return db.changesCount
        }
    }

    public func releaseStaleLeases(_ lease: Duration) async throws {
        try await write { db in
            let now = Self.now
            try db.execute(
                sql: """
                    UPDATE deliveries SET next_attempt = ?
                    WHERE state = 'pending' AND next_attempt > ? AND next_attempt <= ?
                      AND last_status IS NULL AND last_error IS NULL
                    """, arguments: [now, now, now + Double(lease.components.seconds)])
        }
    }

    public func purgeDeliveries(finishedBefore date: Date) async throws {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM deliveries WHERE state <> 'pending' AND finished_at < ?",
                arguments: [date.timeIntervalSince1970])
        }
    }
}

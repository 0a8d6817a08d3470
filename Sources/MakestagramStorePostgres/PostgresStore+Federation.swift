import Foundation
import MakestagramAPI
import MakestagramStore
import PostgresNIO

extension PostgresStore {
    public func actorKey(user: Int64?) async throws -> Data? {
        try await read { [logger] connection in
            let rows =
                if let user {
                    try await connection.query(
                        "SELECT private_key FROM actor_keys WHERE user_id = \(user)", logger: logger
                    ).collect()
                } else {
                    try await connection.query(
                        "SELECT value FROM server_keys WHERE name = 'instance-actor'", logger: logger
                    ).collect()
                }
            return try rows.first?.decode(Data.self)
        }
    }

    public func saveActorKey(user: Int64?, key: Data) async throws -> Data {
        try await write { [logger] connection, _ in
            let rows =
                if let user {
                    try await connection.query(
                        """
                        WITH made AS (
                          INSERT INTO actor_keys (user_id, private_key) VALUES (\(user), \(key))
                          ON CONFLICT (user_id) DO NOTHING RETURNING private_key)
                        SELECT private_key FROM made
                        UNION ALL SELECT private_key FROM actor_keys WHERE user_id = \(user)
                        """, logger: logger
                    ).collect()
                } else {
                    try await connection.query(
                        """
                        WITH made AS (
                          INSERT INTO server_keys (name, value) VALUES ('instance-actor', \(key))
                          ON CONFLICT (name) DO NOTHING RETURNING value)
                        SELECT value FROM made
                        UNION ALL SELECT value FROM server_keys WHERE name = 'instance-actor'
                        """, logger: logger
                    ).collect()
                }
            return try rows.first?.decode(Data.self) ?? key
        }
    }

    public func replaceActorKey(user: Int64, key: Data) async throws {
        try await write { [logger] connection, changes in
            let local = try await connection.query(
                """
                SELECT 1 FROM users u WHERE u.id = \(user) AND u.status = 'active'
                  AND NOT EXISTS (SELECT 1 FROM remote_actors r WHERE r.user_id = u.id)
                """, logger: logger
            ).collect()
            guard !local.isEmpty,
                let profile = try await Self.profile(connection, id: user, viewer: user, logger: logger)
            else { throw StoreError.notFound("user") }
            try await connection.query(
                """
                INSERT INTO actor_keys (user_id, private_key) VALUES (\(user), \(key))
                ON CONFLICT (user_id) DO UPDATE SET private_key = excluded.private_key
                """, logger: logger)
            changes.publish(.profileChanged(user: profile.summary))
        }
    }

    public func saveRemoteActor(_ document: RemoteActorDocument) async throws -> RemoteActor {
        try await write { [logger] connection, changes in
            let key = PeopleSearch.key(username: document.username, displayName: document.displayName)
            let old = try await connection.query(
                """
                SELECT id, display_name, bio, is_private FROM users WHERE username = \(document.username) FOR UPDATE
                """, logger: logger
            ).collect().first.map { try $0.decode((Int64, String, String, Bool).self) }
            let id: Int64
            let isPrivate: Bool
            if let old {
                id = old.0
                // Private while posts for their followers only are kept (``followersOnlyRemotePosts(of:)``).
                let keepsFollowersOnly =
                    try await connection.query(
                        """
                        SELECT EXISTS (SELECT 1 FROM posts p JOIN remote_posts r ON r.post_id = p.id
                          WHERE p.author_id = \(id) AND r.followers_only)
                        """, logger: logger
                    ).collect().first?.decode(Bool.self) ?? false
                isPrivate = document.isPrivate || keepsFollowersOnly
                try await connection.query(
                    """
                    UPDATE users SET display_name = \(document.displayName), bio = \(document.bio),
                      search_key = \(key), is_private = \(isPrivate)
                    WHERE id = \(id)
                    """, logger: logger)
                if old.1 != document.displayName || old.2 != document.bio,
                    let profile = try await Self.profile(connection, id: id, viewer: id, logger: logger)
                {
                    changes.publish(.profileChanged(user: profile.summary))
                }
                if old.3 != isPrivate {
                    changes.publish(.privacyChanged(user: id, isPrivate: isPrivate))
                }
            } else {
                let rows = try await connection.query(
                    """
                    INSERT INTO users (username, display_name, bio, password_hash, created_at, search_key, is_private)
                    VALUES (\(document.username), \(document.displayName), \(document.bio), '!', \(Date().timeIntervalSince1970),
                      \(key), \(document.isPrivate))
                    RETURNING id
                    """, logger: logger
                ).collect()
                guard let made = try rows.first?.decode(Int64.self) else { throw StoreError.notFound("user") }
                id = made
                isPrivate = document.isPrivate
                if document.isPrivate { changes.publish(.privacyChanged(user: id, isPrivate: true)) }
            }
            try await connection.query(
                """
                INSERT INTO remote_actors
                  (user_id, uri, inbox, shared_inbox, key_id, public_key_pem, profile_url, fetched_at, icon_url)
                VALUES (\(id), \(document.uri), \(document.inbox), \(document.sharedInbox), \(document.keyID),
                  \(document.publicKeyPEM), \(document.profileURL), \(Date().timeIntervalSince1970), \(document.iconURL))
                ON CONFLICT (user_id) DO UPDATE SET uri = excluded.uri, inbox = excluded.inbox,
                  shared_inbox = excluded.shared_inbox, key_id = excluded.key_id,
                  public_key_pem = excluded.public_key_pem, profile_url = excluded.profile_url,
                  fetched_at = excluded.fetched_at, icon_url = excluded.icon_url
                """, logger: logger)
            return RemoteActor(
                userID: id, username: document.username, uri: document.uri, inbox: document.inbox,
                sharedInbox: document.sharedInbox, keyID: document.keyID, publicKeyPEM: document.publicKeyPEM,
                profileURL: document.profileURL, iconURL: document.iconURL)
        }
    }

    public func remoteActor(uri: String) async throws -> RemoteActor? {
        try await read { [logger] connection in
            try await Self.remoteActors(connection, uri: uri, user: nil, logger: logger).first
        }
    }

    public func remoteActor(user: Int64) async throws -> RemoteActor? {
        try await read { [logger] connection in
            try await Self.remoteActors(connection, uri: nil, user: user, logger: logger).first
        }
    }

    /// The active remote people whose id is `uri`, or whose user is `user`.
    private static func remoteActors(_ connection: PostgresConnection, uri: String?, user: Int64?, logger: Logger)
        async throws -> [RemoteActor]
    {
        try await connection.query(
            """
            SELECT r.user_id, u.username, r.uri, r.inbox, r.shared_inbox, r.key_id, r.public_key_pem,
              r.profile_url, r.icon_url
            FROM remote_actors r JOIN users u ON u.id = r.user_id
            WHERE (r.uri = \(uri) OR r.user_id = \(user)) AND u.status = 'active'
            """, logger: logger
        ).collect().map { row in
            let (id, name, uri, inbox, shared, keyID, pem, url, icon) = try row.decode(
                (Int64, String, String, String, String?, String, String, String?, String?).self)
            return RemoteActor(
                userID: id, username: name, uri: uri, inbox: inbox, sharedInbox: shared, keyID: keyID,
                publicKeyPEM: pem, profileURL: url, iconURL: icon)
        }
    }

    public func remoteUsers(onDomain domain: String) async throws -> [(id: Int64, username: String)] {
        try await read { [logger] connection in
            var users: [(id: Int64, username: String)] = []
            for try await (id, username) in try await connection.query(
                """
                SELECT u.id, u.username FROM remote_actors r JOIN users u ON u.id = r.user_id
                WHERE strpos(u.username, \(domain)) > 0 AND u.status <> 'deleting'
                """, logger: logger
            ).decode((Int64, String).self) {
                guard let host = DomainName.host(ofUsername: username), DomainName.covers(domain, host: host) else {
                    continue
                }
                users.append((id, username))
            }
            return users
        }
    }

    static func remoteMedia(_ row: (Int64, String, String, Double, Bool)) -> RemoteMedia {
        RemoteMedia(
            id: row.0, source: row.1, files: row.2.split(separator: " ").map(String.init),
            keptAt: Date(timeIntervalSince1970: row.3), evicted: row.4)
    }

    public func keptRemoteMedia() async throws -> [RemoteMedia] {
        try await read { [logger] connection in
            var kept: [RemoteMedia] = []
            for try await row in try await connection.query(
                "SELECT id, source, files, kept_at, evicted FROM remote_media WHERE NOT evicted ORDER BY kept_at, id",
                logger: logger
            ).decode((Int64, String, String, Double, Bool).self) {
                kept.append(Self.remoteMedia(row))
            }
            return kept
        }
    }

    public func remoteMedia(file: String) async throws -> RemoteMedia? {
        try await read { [logger] connection in
            try await connection.query(
                """
                SELECT m.id, m.source, m.files, m.kept_at, m.evicted
                FROM remote_media_files f JOIN remote_media m ON m.id = f.media_id WHERE f.file = \(file)
                """, logger: logger
            ).collect().first.map { Self.remoteMedia(try $0.decode((Int64, String, String, Double, Bool).self)) }
        }
    }

    public func markRemoteMedia(_ ids: [Int64], evicted: Bool) async throws {
        guard !ids.isEmpty else { return }
        try await write { [logger] connection, _ in
            let now = Date().timeIntervalSince1970
            try await connection.query(
                """
                UPDATE remote_media SET evicted = \(evicted),
                  kept_at = CASE WHEN \(evicted) THEN kept_at ELSE \(now) END
                WHERE id = ANY(\(ids))
                """, logger: logger)
        }
    }

    public func remoteFollowerInboxes(of user: Int64) async throws -> [String] {
        try await read { [logger] connection in
            try await connection.query(
                """
                SELECT DISTINCT coalesce(r.shared_inbox, r.inbox) FROM follows f
                JOIN remote_actors r ON r.user_id = f.follower_id
                JOIN users u ON u.id = r.user_id AND u.status = 'active'
                WHERE f.followee_id = \(user) ORDER BY 1
                """, logger: logger
            ).collect().map { try $0.decode(String.self) }
        }
    }

    public func knownInboxes() async throws -> [String] {
        try await read { [logger] connection in
            try await connection.query(
                """
                SELECT DISTINCT coalesce(r.shared_inbox, r.inbox) FROM remote_actors r
                JOIN users u ON u.id = r.user_id AND u.status = 'active' ORDER BY 1
                """, logger: logger
            ).collect().map { try $0.decode(String.self) }
        }
    }

    public func sender(id: Int64) async throws -> (user: UserSummary, leaving: Bool)? {
        try await read { [logger] connection in
            guard
                let row = try await connection.query(
                    """
                    SELECT id, username, display_name, status FROM users
                    WHERE id = \(id) AND status IN ('active', 'deleting')
                    """, logger: logger
                ).collect().first
            else { return nil }
            let (id, username, name, status) = try row.decode((Int64, String, String, String).self)
            return (
                UserSummary(id: id, username: username, displayName: name), status == AccountStatus.deleting.rawValue
            )
        }
    }

    public func leavingUser(username: String) async throws -> Int64? {
        try await read { [logger] connection in
            try await connection.query(
                """
                SELECT u.id FROM users u JOIN actor_keys k ON k.user_id = u.id
                WHERE u.username = \(username.lowercased()) AND u.status = 'deleting'
                  AND position('@' in u.username) = 0
                """, logger: logger
            ).collect().first?.decode(Int64.self)
        }
    }

    public func localUsage() async throws -> (users: Int, posts: Int) {
        try await read { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT count(*), coalesce(sum(post_count), 0)::bigint FROM users
                WHERE status = 'active' AND position('@' in username) = 0
                """, logger: logger
            ).collect()
            guard let row = rows.first else { return (0, 0) }
            let (users, posts) = try row.decode((Int64, Int64).self)
            return (Int(users), Int(posts))
        }
    }

    public func rememberInbound(_ activity: InboundActivity) async throws -> Bool {
        try await write { [logger] connection, _ in try await Self.remember(activity, connection, logger: logger) }
    }

    /// Remembers `activity` within the transaction on `connection`; false when its id was remembered already.
    static func remember(_ activity: InboundActivity, _ connection: PostgresConnection, logger: Logger) async throws
        -> Bool
    {
        try await !connection.query(
            """
            INSERT INTO inbound_activities (id, actor_id, kind, object_id, received_at)
            VALUES (\(activity.id), \(activity.actor), \(activity.kind.rawValue), \(activity.object),
              \(Date().timeIntervalSince1970))
            ON CONFLICT (id) DO NOTHING RETURNING id
            """, logger: logger
        ).collect().isEmpty
    }

    public func addRemoteComment(postID: Int64, author: Int64, text: String, note: String) async throws -> Comment? {
        try await write { [logger] connection, changes in
            try await Self.lockNote(note, connection, logger: logger)
            guard
                try await connection.query("SELECT 1 FROM inbound_activities WHERE id = \(note)", logger: logger)
                    .collect().isEmpty
            else { return nil }
            let comment = try await Self.insertComment(
                connection, postID: postID, author: author, text: text, changes: changes, logger: logger)
            _ = try await Self.remember(
                InboundActivity(id: note, actor: author, kind: .comment, object: comment.id), connection,
                logger: logger)
            return comment
        }
    }

    /// Makes two deliveries of the Note `uri` wait for each other until the first's transaction ends, so that the
    /// second sees what the first made (a key space of two numbers: the jobs' locks use one).
    static func lockNote(_ uri: String, _ connection: PostgresConnection, logger: Logger) async throws {
        _ = try await connection.query("SELECT pg_advisory_xact_lock(7263, hashtext(\(uri)))", logger: logger)
            .collect()
    }

    public func inbound(id: String) async throws -> InboundActivity? {
        try await read { [logger] connection in
            try await connection.query(
                "SELECT id, actor_id, kind, object_id FROM inbound_activities WHERE id = \(id)", logger: logger
            ).collect().first.flatMap { row in
                let (id, actor, kind, object) = try row.decode((String, Int64, String, Int64).self)
                return InboundActivity.Kind(rawValue: kind).map {
                    InboundActivity(id: id, actor: actor, kind: $0, object: object)
                }
            }
        }
    }

    public func forgetInbound(id: String) async throws {
        try await write { [logger] connection, _ in
            try await connection.query("DELETE FROM inbound_activities WHERE id = \(id)", logger: logger)
        }
    }

    public func inboundFollow(actor: Int64, target: Int64) async throws -> String? {
        try await read { [logger] connection in
            try await connection.query(
                """
                SELECT id FROM inbound_activities WHERE actor_id = \(actor) AND kind = 'follow' AND object_id = \(target)
                ORDER BY received_at DESC LIMIT 1
                """, logger: logger
            ).collect().first?.decode(String.self)
        }
    }

    public func createRemotePost(fromUploads ids: [Int64], userID: Int64, caption: String, origin: RemotePostOrigin)
        async throws -> Post?
    {
        try await write { [logger] connection, changes in
            try await Self.lockNote(origin.uri, connection, logger: logger)
            guard
                try await connection.query(
                    "SELECT post_id FROM remote_posts WHERE uri = \(origin.uri)", logger: logger
                ).collect().isEmpty
            else { return nil }
            if origin.followersOnly {
                // Shown only as a private account's posts are: refused once the author is not one. The row stays
                // locked until commit, so that the author cannot turn public in between.
                let isPrivate = try await connection.query(
                    "SELECT is_private FROM users WHERE id = \(userID) FOR NO KEY UPDATE", logger: logger
                ).collect().first?.decode(Bool.self)
                guard isPrivate == true else { throw StoreError.forbidden }
            }
            let post = try await self.insertPost(
                connection, fromUploads: ids, userID: userID, caption: caption, changes: changes,
                original: origin.url ?? origin.uri)
            try await connection.query(
                """
                INSERT INTO remote_posts (post_id, uri, url, followers_only)
                VALUES (\(post.id), \(origin.uri), \(origin.url), \(origin.followersOnly))
                """, logger: logger)
            let now = Date().timeIntervalSince1970
            for photo in origin.photos {
                let files = photo.files
                _ = try await connection.query(
                    """
                    WITH made AS (
                      INSERT INTO remote_media (post_id, source, files, kept_at)
                      VALUES (\(post.id), \(photo.source), \(files.joined(separator: " ")), \(now)) RETURNING id)
                    INSERT INTO remote_media_files (file, media_id)
                    SELECT f, made.id FROM made, unnest(\(files)::text[]) AS f ON CONFLICT DO NOTHING
                    """, logger: logger
                ).collect()
            }
            return post
        }
    }

    public func followersOnlyRemotePosts(of userID: Int64) async throws -> [Int64] {
        try await read { [logger] connection in
            try await connection.query(
                """
                SELECT p.id FROM posts p JOIN remote_posts r ON r.post_id = p.id
                WHERE p.author_id = \(userID) AND r.followers_only ORDER BY p.id
                """, logger: logger
            ).collect().map { try $0.decode(Int64.self) }
        }
    }

    public func remotePost(uri: String) async throws -> Int64? {
        try await read { [logger] connection in
            try await connection.query("SELECT post_id FROM remote_posts WHERE uri = \(uri)", logger: logger)
                .collect().first?.decode(Int64.self)
        }
    }

    public func remotePosts(among posts: [Int64]) async throws -> Set<Int64> {
        guard !posts.isEmpty else { return [] }
        return try await read { [logger] connection in
            Set(
                try await connection.query(
                    "SELECT post_id FROM remote_posts WHERE post_id = ANY(\(posts)::bigint[])", logger: logger
                ).collect().map { try $0.decode(Int64.self) })
        }
    }

    public func remotePostURIs(of posts: [Int64]) async throws -> [Int64: (uri: String, url: String?)] {
        guard !posts.isEmpty else { return [:] }
        return try await read { [logger] connection in
            var found: [Int64: (uri: String, url: String?)] = [:]
            for try await (id, uri, url) in try await connection.query(
                "SELECT post_id, uri, url FROM remote_posts WHERE post_id = ANY(\(posts)::bigint[])", logger: logger
            ).decode((Int64, String, String?).self) {
                found[id] = (uri, url)
            }
            return found
        }
    }

    // MARK: Deliveries

    public func joinChangeLog(consumer: String) async throws {
        try await write { [logger] connection, _ in
            try await connection.query(
                """
                INSERT INTO change_consumers (name, position)
                VALUES (\(consumer), pg_current_snapshot()::text)
                ON CONFLICT (name) DO NOTHING
                """, logger: logger)
        }
    }

    public func leaveChangeLog(consumer: String) async throws {
        try await write { [logger] connection, _ in
            try await connection.query("DELETE FROM change_consumers WHERE name = \(consumer)", logger: logger)
        }
    }

    public func queueDeliveries(
        _ deliveries: [OutboundDelivery], farewells: [Int64], consumer: String, batch: ChangeBatch,
        taking take: DeliveryTake?
    ) async throws -> [QueuedDelivery]? {
        try await write { [logger] connection, _ in
            guard try await Self.moveConsumer(connection, consumer, over: batch, logger: logger) else { return nil }
            if !farewells.isEmpty {
                try await connection.query(
                    "DELETE FROM account_farewells WHERE user_id = ANY(\(farewells)::bigint[])", logger: logger)
            }
            let now = Date().timeIntervalSince1970
            // The first ones are taken: due when their lease ends, as if claimed (one attempt); the rest now.
            let first = take.map { min($0.limit, deliveries.count) } ?? 0
            var ids: [String: Int64] = [:]
            for (part, due, attempts) in [
                (deliveries[..<first], now + Double(take?.lease.components.seconds ?? 0), 1),
                (deliveries[first...], now, 0),
            ] where !part.isEmpty {
                for row in try await connection.query(
                    """
                    INSERT INTO deliveries (activity_id, inbox, sender_id, body, next_attempt, attempts, created_at)
                    SELECT a, i, nullif(s, 0), convert_to(b, 'UTF8'), \(due), \(attempts), \(now)
                    FROM unnest(\(part.map(\.activityID))::text[], \(part.map(\.inbox))::text[],
                      \(part.map { $0.sender ?? 0 })::bigint[], \(part.map { String(decoding: $0.body, as: UTF8.self) })::text[]) AS d(a, i, s, b)
                    ON CONFLICT (activity_id, inbox) DO NOTHING
                    RETURNING id, activity_id, inbox
                    """, logger: logger
                ).collect() where attempts == 1 {
                    let (id, activity, inbox) = try row.decode((Int64, String, String).self)
                    ids[activity + "\n" + inbox] = id
                }
            }
            // In their order, each once (the same one twice in `deliveries` is queued once).
            return deliveries[..<first].compactMap { delivery in
                ids.removeValue(forKey: delivery.activityID + "\n" + delivery.inbox).map {
                    QueuedDelivery(id: $0, delivery: delivery, attempts: 1)
                }
            }
        }
    }

    public func claimDeliveries(limit: Int, lease: Duration) async throws -> [QueuedDelivery] {
        try await write { [logger] connection, _ in
            let now = Date().timeIntervalSince1970
            let until = now + Double(lease.components.seconds)
            return try await connection.query(
                """
                UPDATE deliveries SET next_attempt = \(until), attempts = attempts + 1
                WHERE id IN (
                  SELECT id FROM deliveries WHERE state = 'pending' AND next_attempt <= \(now)
                  ORDER BY next_attempt, id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                RETURNING id, activity_id, inbox, sender_id, body, attempts
                """, logger: logger
            ).collect().map { row in
                let (id, activity, inbox, sender, body, attempts) = try row.decode(
                    (Int64, String, String, Int64?, Data, Int).self)
                return QueuedDelivery(
                    id: id,
                    delivery: OutboundDelivery(activityID: activity, inbox: inbox, sender: sender, body: body),
                    attempts: attempts)
            }.sorted { $0.id < $1.id }
        }
    }

    public func finishDeliveries(_ outcomes: [(id: Int64, outcome: DeliveryOutcome)], servers: [ServerResult])
        async throws
    {
        guard !outcomes.isEmpty || !servers.isEmpty else { return }
        var ids: [Int64] = []
        var states: [String] = []
        var attempts: [Double] = []
        var statuses: [Int] = []
        var errors: [String] = []
        for (id, outcome) in outcomes {
            ids.append(id)
            switch outcome {
            case .delivered(let status):
                states.append("delivered")
                attempts.append(0)
                statuses.append(status)
                errors.append("")
            case .retry(let at, let status, let error):
                states.append("pending")
                attempts.append(at.timeIntervalSince1970)
                statuses.append(status ?? -1)
                errors.append(error)
            case .gaveUp(let status, let error):
                states.append("failed")
                attempts.append(0)
                statuses.append(status ?? -1)
                errors.append(error)
            }
        }
        try await write { [logger, ids, states, attempts, statuses, errors] connection, _ in
            let now = Date().timeIntervalSince1970
            try await connection.query(
                """
                UPDATE deliveries d SET state = o.state,
                  body = CASE WHEN o.state = 'pending' THEN d.body ELSE ''::bytea END,
                  next_attempt = CASE WHEN o.state = 'pending' THEN o.next_attempt ELSE d.next_attempt END,
                  last_status = nullif(o.status, -1), last_error = nullif(o.error, ''),
                  finished_at = CASE WHEN o.state = 'pending' THEN NULL ELSE \(now) END
                FROM unnest(\(ids)::bigint[], \(states)::text[], \(attempts)::float8[], \(statuses)::int[],
                  \(errors)::text[]) AS o(id, state, next_attempt, status, error)
                WHERE d.id = o.id
                """, logger: logger)
            for result in servers {
                if result.answered {
                    try await connection.query(
                        """
                        INSERT INTO delivery_servers (server, last_delivered, failures) VALUES (\(result.server), \(now), 0)
                        ON CONFLICT (server) DO UPDATE SET last_delivered = excluded.last_delivered, failures = 0,
                          failing_since = NULL, last_error = NULL
                        """, logger: logger)
                } else {
                    try await connection.query(
                        """
                        INSERT INTO delivery_servers (server, last_failed, failing_since, failures, last_error)
                        VALUES (\(result.server), \(now), \(now), 1, \(result.error))
                        ON CONFLICT (server) DO UPDATE SET last_failed = excluded.last_failed,
                          failures = delivery_servers.failures + 1,
                          failing_since = coalesce(delivery_servers.failing_since, excluded.failing_since),
                          last_error = excluded.last_error
                        """, logger: logger)
                }
            }
        }
    }

    public func deliveryServers() async throws -> [ServerRecord] {
        @Sendable func date(_ value: Double?) -> Date? { value.map(Date.init(timeIntervalSince1970:)) }
        return try await read { [logger] connection in
            var records: [ServerRecord] = []
            for try await (server, delivered, failed, since, failures, error) in try await connection.query(
                """
                SELECT server, last_delivered, last_failed, failing_since, failures, last_error FROM delivery_servers
                ORDER BY failing_since IS NULL, failing_since, coalesce(last_delivered, last_failed) DESC
                """, logger: logger
            ).decode((String, Double?, Double?, Double?, Int, String?).self) {
                records.append(
                    ServerRecord(
                        server: server, lastDelivered: date(delivered), lastFailed: date(failed),
                        failingSince: date(since), failures: failures, lastError: error))
            }
            return records
        }
    }

    public func heardFrom(server: String) async throws {
        try await write { [logger] connection, _ in
            try await connection.query(
                "UPDATE delivery_servers SET failing_since = NULL, failures = 0 WHERE server = \(server)",
                logger: logger)
        }
    }

    public func pendingDeliveries() async throws -> [(inbox: String, count: Int, next: Date)] {
        try await read { [logger] connection in
            var pending: [(inbox: String, count: Int, next: Date)] = []
            for try await (inbox, count, next) in try await connection.query(
                """
                SELECT inbox, count(*)::int, min(next_attempt) FROM deliveries WHERE state = 'pending' GROUP BY inbox
                """, logger: logger
            ).decode((String, Int, Double).self) {
                pending.append((inbox, count, Date(timeIntervalSince1970: next)))
            }
            return pending
        }
    }

    public func retryDeliveries(inboxes: [String]) async throws -> Int {
        try await write { [logger] connection, _ in
            let now = Date().timeIntervalSince1970
            return try await connection.query(
                """
                UPDATE deliveries SET next_attempt = \(now) WHERE state = 'pending' AND inbox = ANY(\(inboxes))
                  AND next_attempt > \(now)
                RETURNING 1
                """, logger: logger
            ).collect().count
        }
    }

    public func releaseStaleLeases(_ lease: Duration) async throws {}

    public func purgeDeliveries(finishedBefore date: Date) async throws {
        try await write { [logger] connection, _ in
            try await connection.query(
                """
                DELETE FROM deliveries WHERE state <> 'pending' AND finished_at < \(date.timeIntervalSince1970)
                """, logger: logger)
        }
    }
}

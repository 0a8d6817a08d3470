import Foundation
import MakestagramAPI
import MakestagramStore
import PostgresNIO

extension PostgresStore {
    /// The profile of the user with `id` (or, when nil, `username`) as `viewer` sees it.
    static func profile(
        _ connection: PostgresConnection, id: Int64? = nil, username: String? = nil, viewer: Int64, logger: Logger,
        lock: Bool = false
    ) async throws -> UserProfile? {
        var sql = SQL(
            """
            SELECT u.id, u.username, u.display_name, u.avatar_file, u.post_count, u.follower_count, u.following_count,
              u.created_at, u.avatar_large_file, u.bio, u.hide_like_counts, u.is_moderator
            """)
        sql.append(", EXISTS (SELECT 1 FROM follows WHERE follower_id = \(sql.bind(viewer)) AND followee_id = u.id)")
        sql.append(", EXISTS (SELECT 1 FROM mutes WHERE muter_id = \(sql.bind(viewer)) AND muted_id = u.id)")
        sql.append(", EXISTS (SELECT 1 FROM blocks WHERE blocker_id = \(sql.bind(viewer)) AND blocked_id = u.id)")
        sql.append(", u.is_private")
        sql.append(
            ", EXISTS (SELECT 1 FROM follow_requests WHERE requester_id = \(sql.bind(viewer)) AND target_id = u.id)")
        if let id {
            sql.append(" FROM users u WHERE u.id = \(sql.bind(id))")
        } else {
            sql.append(" FROM users u WHERE u.username = \(sql.bind(folded(username ?? "")))")
        }
        sql.append(" AND u.status = 'active'")
        sql.append(
            " AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = u.id AND blocked_id = \(sql.bind(viewer)))")
        if lock { sql.append(" FOR NO KEY UPDATE") }
        let rows = try await connection.query(sql.query, logger: logger).collect()
        return try rows.first.map { row in
            let (
                id, username, displayName, avatar, posts, followers, following, createdAt, large, bio, hides, moderator,
                follows, mutes, blocks, isPrivate, requested
            ) =
                try row.decode(
                    (
                        Int64, String, String, String?, Int, Int, Int, Double, String?, String, Bool, Bool, Bool, Bool,
                        Bool, Bool, Bool
                    ).self)
            return UserProfile(
                id: id, username: username, displayName: displayName, avatarURL: avatar.map(MediaPath.url(for:)),
                avatarLargeURL: large.map(MediaPath.url(for:)), bio: bio, postCount: posts, followerCount: followers,
                followingCount: following, viewerFollows: follows,
                createdAt: Date(timeIntervalSince1970: createdAt), hideLikeCounts: viewer == id ? hides : nil,
                isModerator: viewer == id ? moderator : nil, viewerMutes: viewer == id ? nil : mutes,
                viewerBlocks: viewer == id ? nil : blocks, isPrivate: isPrivate,
                viewerRequested: viewer == id ? nil : requested)
        }
    }

    /// Which way a block stands between `viewer` and `other`, if one does.
    static func block(_ connection: PostgresConnection, between viewer: Int64, and other: Int64, logger: Logger)
        async throws -> BlockDirection?
    {
        let rows = try await connection.query(
            """
            SELECT blocker_id FROM blocks WHERE (blocker_id = \(viewer) AND blocked_id = \(other))
              OR (blocker_id = \(other) AND blocked_id = \(viewer)) LIMIT 1
            """, logger: logger
        ).collect()
        return try rows.first.map { try $0.decode(Int64.self) == viewer ? .blocking : .blockedBy }
    }

    static func userID(_ connection: PostgresConnection, username: String, logger: Logger) async throws -> Int64? {
        let rows = try await connection.query(
            "SELECT id FROM users WHERE username = \(folded(username)) AND status = 'active'", logger: logger
        ).collect()
        return try rows.first?.decode(Int64.self)
    }

    public func setHidesLikeCounts(userID: Int64, hidden: Bool) async throws -> UserProfile {
        try await write { [logger] connection, _ in
            try await connection.query(
                "UPDATE users SET hide_like_counts = \(hidden) WHERE id = \(userID)", logger: logger)
            guard let profile = try await Self.profile(connection, id: userID, viewer: userID, logger: logger) else {
                throw StoreError.notFound("user")
            }
            return profile
        }
    }

    public func updateProfile(userID: Int64, displayName: String?, bio: String?) async throws -> UserProfile {
        try await write { [logger] connection, changes in
            guard
                let old = try await Self.profile(connection, id: userID, viewer: userID, logger: logger, lock: true)
            else { throw StoreError.notFound("user") }
            let name = displayName ?? old.displayName
            let bio = bio ?? old.bio
            let key = PeopleSearch.key(username: old.username, displayName: name)
            try await connection.query(
                "UPDATE users SET display_name = \(name), bio = \(bio), search_key = \(key) WHERE id = \(userID)",
                logger: logger)
            var profile = old
            profile.displayName = name
            profile.bio = bio
            if profile != old { changes.publish(.profileChanged(user: profile.summary)) }
            return profile
        }
    }

    public func setAvatar(userID: Int64, files: AvatarFiles?) async throws -> (
        profile: UserProfile, replaced: [String]
    ) {
        try await write { [logger] connection, changes in
            guard
                let old = try await Self.profile(connection, id: userID, viewer: userID, logger: logger, lock: true)
            else { throw StoreError.notFound("user") }
            try await connection.query(
                """
                UPDATE users SET avatar_file = \(files?.small), avatar_large_file = \(files?.large)
                WHERE id = \(userID)
                """, logger: logger)
            var profile = old
            profile.avatarURL = files.map { MediaPath.url(for: $0.small) }
            profile.avatarLargeURL = files.map { MediaPath.url(for: $0.large) }
            changes.publish(.profileChanged(user: profile.summary))
            let replaced = [old.avatarURL, old.avatarLargeURL].compactMap { $0.map(MediaPath.fileName(ofURL:)) }
            return (profile, replaced)
        }
    }

    public var renderEpoch: UInt64 { caches.renderEpoch }

    public func profile(username: String, viewer: Int64) async throws -> UserProfile? {
        try await read { [logger] connection in
            try await Self.profile(connection, username: username, viewer: viewer, logger: logger)
        }
    }

    public func profile(id: Int64, viewer: Int64) async throws -> UserProfile? {
        try await read { [logger] connection in
            try await Self.profile(connection, id: id, viewer: viewer, logger: logger)
        }
    }

    public func searchUsers(query: String, viewer: Int64, limit: Int) async throws -> [UserSummary] {
        let folded = PeopleSearch.fold(query)
        guard !folded.isEmpty else { return [] }
        let escaped = PeopleSearch.likeEscaped(folded)
        let length = folded.unicodeScalars.count
        let short = length < PeopleSearch.substringMinimum
        // Two characters are found through the pairs' index (pg_trgm cannot use a pattern that short); each branch
        // below runs only for its length (a condition on a parameter alone is settled before the scan).
        let pairs = length < PeopleSearch.trigramMinimum
        return try await read { [logger] connection in
            let rows: PostgresRowSequence
            if short {
                rows = try await connection.query(
                    """
                    WITH candidates AS (
                      (SELECT id FROM users WHERE username LIKE \(escaped + "%") LIMIT \(PeopleSearch.candidateLimit))
                      UNION
                      SELECT f.followee_id FROM follows f JOIN users fu ON fu.id = f.followee_id
                      WHERE f.follower_id = \(viewer) AND fu.username LIKE \(escaped + "%"))
                    SELECT u.id, u.username, u.display_name, u.avatar_file FROM candidates c JOIN users u ON u.id = c.id
                    WHERE u.status = 'active' AND \(unescaped: Visibility.unblocked(viewer: String(viewer), user: "u.id"))
                    ORDER BY u.username <> \(folded),
                      EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = \(viewer) AND f.followee_id = u.id) DESC,
                      length(u.username), u.username
                    LIMIT \(limit)
                    """, logger: logger)
            } else {
                let contains = "%" + escaped + "%"
                rows = try await connection.query(
                    """
                    WITH candidates AS (
                      (SELECT id FROM users WHERE \(pairs) AND search_pairs(search_key) @> ARRAY[\(folded)]
                       LIMIT \(PeopleSearch.candidateLimit))
                      UNION
                      (SELECT id FROM users WHERE NOT \(pairs) AND search_key LIKE \(contains)
                       LIMIT \(PeopleSearch.candidateLimit))
                      UNION
                      (SELECT id FROM users WHERE username LIKE \(escaped + "%") LIMIT \(PeopleSearch.candidateLimit))
                      UNION
                      SELECT f.followee_id FROM follows f JOIN users fu ON fu.id = f.followee_id
                      WHERE f.follower_id = \(viewer) AND fu.search_key LIKE \(contains))
                    SELECT u.id, u.username, u.display_name, u.avatar_file FROM candidates c JOIN users u ON u.id = c.id
                    WHERE u.status = 'active' AND \(unescaped: Visibility.unblocked(viewer: String(viewer), user: "u.id"))
                    ORDER BY CASE
                        WHEN u.username = \(folded) OR u.search_key = u.username || \("\n" + folded) THEN 0
                        WHEN u.search_key LIKE \(escaped + "%") OR u.search_key LIKE \("%\n" + escaped + "%")
                          OR u.search_key LIKE \("% " + escaped + "%") THEN 1
                        ELSE 2 END,
                      EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = \(viewer) AND f.followee_id = u.id) DESC,
                      length(u.username), u.username
                    LIMIT \(limit)
                    """, logger: logger)
            }
            var users: [UserSummary] = []
            for try await row in rows { users.append(try PostRows.summary(row)) }
            return users
        }
    }

    public func suggestedUsers(viewer: Int64, related: Int64?, limit: Int) async throws -> [UserSummary] {
        let related = related ?? 0
        return try await read { [logger] connection in
            var ranked: [UserSummary] = []
            let rankedRows = try await connection.query(
                """
                SELECT u.id, u.username, u.display_name, u.avatar_file
                FROM follows f JOIN users u ON u.id = f.followee_id
                WHERE (f.follower_id IN (SELECT followee_id FROM follows WHERE follower_id = \(viewer))
                    OR f.follower_id = \(related))
                  AND f.followee_id NOT IN (\(viewer), \(related)) AND u.status = 'active'
                  AND \(unescaped: Visibility.unblocked(viewer: String(viewer), user: "u.id"))
                  AND NOT EXISTS (SELECT 1 FROM follows m WHERE m.follower_id = \(viewer) AND m.followee_id = u.id)
                GROUP BY u.id
                ORDER BY bool_or(f.follower_id = \(related)) DESC, count(*) DESC, u.follower_count DESC, u.id
                LIMIT \(limit)
                """, logger: logger)
            for try await row in rankedRows { ranked.append(try PostRows.summary(row)) }
            guard ranked.count < limit else { return ranked }
            var popular: [UserSummary] = []
            let popularRows = try await connection.query(
                """
                SELECT u.id, u.username, u.display_name, u.avatar_file FROM users u
                WHERE u.id NOT IN (\(viewer), \(related)) AND u.status = 'active'
                  AND \(unescaped: Visibility.unblocked(viewer: String(viewer), user: "u.id"))
                  AND NOT EXISTS (SELECT 1 FROM follows m WHERE m.follower_id = \(viewer) AND m.followee_id = u.id)
                ORDER BY u.follower_count DESC, u.id LIMIT \(limit + ranked.count)
                """, logger: logger)
            for try await row in popularRows { popular.append(try PostRows.summary(row)) }
            return FollowSuggestions.merge(ranked: ranked, popular: popular, limit: limit)
        }
    }

    public func followed(by viewer: Int64, among users: [Int64]) async throws -> Set<Int64> {
        guard !users.isEmpty else { return [] }
        return try await read { [logger] connection in
            let rows = try await connection.query(
                "SELECT followee_id FROM follows WHERE follower_id = \(viewer) AND followee_id = ANY(\(users))",
                logger: logger)
            var followed = Set<Int64>()
            for try await id in rows.decode(Int64.self) { followed.insert(id) }
            return followed
        }
    }

    /// Gives every user without a search key (those from before migration v9, or written by another tool) its
    /// key, a thousand at a time.
    func fillSearchKeys() async throws {
        var after: Int64 = 0
        while true {
            let batch = try await read { [logger, after] connection in
                let rows = try await connection.query(
                    """
                    SELECT id, username, display_name FROM users WHERE id > \(after) AND search_key IS NULL
                    ORDER BY id LIMIT 1000
                    """, logger: logger)
                var batch: [(Int64, String, String)] = []
                for try await row in rows.decode((Int64, String, String).self) { batch.append(row) }
                return batch
            }
            guard let last = batch.last else { return }
            let ids = batch.map(\.0)
            let keys = batch.map { PeopleSearch.key(username: $0.1, displayName: $0.2) }
            _ = try await read { [logger] connection in
                try await connection.query(
                    """
                    UPDATE users SET search_key = k.key FROM unnest(\(ids)::bigint[], \(keys)::text[]) AS k(id, key)
                    WHERE users.id = k.id AND users.search_key IS NULL
                    """, logger: logger)
            }
            after = last.0
        }
    }

    public func setFollow(viewer: Int64, username: String, following: Bool) async throws -> FollowState {
        try await write { [logger] connection, changes in
            guard let target = try await Self.userID(connection, username: username, logger: logger) else {
                throw StoreError.notFound("user")
            }
            if target == viewer { throw StoreError.cannotFollowSelf }
            // Both users locked first, in ID order, as a block or a privacy switch locks them: one committing
            // meanwhile is seen.
            try await connection.query(
                "SELECT 1 FROM users WHERE id IN (\(viewer), \(target)) ORDER BY id FOR NO KEY UPDATE",
                logger: logger)
            var requested = false
            if following {
                switch try await Self.block(connection, between: viewer, and: target, logger: logger) {
                case .blocking: throw StoreError.youBlockThem
                case .blockedBy: throw StoreError.notFound("user")
                case nil: break
                }
                let state = try await connection.query(
                    """
                    SELECT u.is_private OR EXISTS (SELECT 1 FROM remote_actors WHERE user_id = u.id),
                      EXISTS (SELECT 1 FROM follows WHERE follower_id = \(viewer) AND followee_id = \(target))
                    FROM users u WHERE u.id = \(target)
                    """, logger: logger
                ).collect()
                let (isPrivate, follows) = try state.first?.decode((Bool, Bool).self) ?? (false, false)
                if isPrivate && !follows {
                    let asked = try await connection.query(
                        """
                        INSERT INTO follow_requests (requester_id, target_id, created_at)
                        VALUES (\(viewer), \(target), \(Self.now)) ON CONFLICT DO NOTHING RETURNING 1
                        """, logger: logger
                    ).collect()
                    if !asked.isEmpty {
                        changes.publish(.followRequestChanged(requester: viewer, target: target, pending: true))
                    }
                    requested = true
                } else {
                    try await Self.follow(
                        connection, follower: viewer, followee: target, changes: changes, logger: logger)
                }
            } else {
                if try await Self.block(connection, between: viewer, and: target, logger: logger) == .blockedBy {
                    throw StoreError.notFound("user")
                }
                try await Self.endRequest(
                    connection, requester: viewer, target: target, changes: changes, logger: logger)
                let changed = try await connection.query(
                    "DELETE FROM follows WHERE follower_id = \(viewer) AND followee_id = \(target) RETURNING 1",
                    logger: logger
                ).collect()
                if !changed.isEmpty {
                    changes.publish(.followChanged(follower: viewer, followee: target, following: false))
                }
            }
            let rows = try await connection.query(
                "SELECT follower_count FROM users WHERE id = \(target)", logger: logger
            ).collect()
            return FollowState(
                followerCount: try rows.first?.decode(Int.self) ?? 0, viewerFollows: following && !requested,
                viewerRequested: requested)
        }
    }

    /// Makes `follower` follow `followee` inside the current transaction, publishing it if it is new.
    static func follow(
        _ connection: PostgresConnection, follower: Int64, followee: Int64, changes: Changes, logger: Logger
    ) async throws {
        let changed = try await connection.query(
            """
            INSERT INTO follows (follower_id, followee_id, created_at) VALUES (\(follower), \(followee), \(Self.now))
            ON CONFLICT DO NOTHING RETURNING 1
            """, logger: logger
        ).collect()
        if !changed.isEmpty { changes.publish(.followChanged(follower: follower, followee: followee, following: true)) }
    }

    /// Ends `requester`'s request to follow `target`, if there is one, and publishes it; answers whether there was.
    @discardableResult
    static func endRequest(
        _ connection: PostgresConnection, requester: Int64, target: Int64, changes: Changes, logger: Logger
    ) async throws -> Bool {
        let ended = try await connection.query(
            "DELETE FROM follow_requests WHERE requester_id = \(requester) AND target_id = \(target) RETURNING 1",
            logger: logger
        ).collect()
        guard !ended.isEmpty else { return false }
        changes.publish(.followRequestChanged(requester: requester, target: target, pending: false))
        return true
    }

    public func setPrivate(userID: Int64, isPrivate: Bool) async throws -> UserProfile {
        try await write { [logger] connection, changes in
            let changed = try await connection.query(
                """
                UPDATE users SET is_private = \(isPrivate) WHERE id = \(userID) AND is_private <> \(isPrivate)
                RETURNING 1
                """, logger: logger
            ).collect()
            if !changed.isEmpty {
                // The photos' URLs change (signed, or plain again): every post is a new version, for every cache
                // and screen that holds one to read it again.
                try await connection.query(
                    "UPDATE posts SET version = version + 1 WHERE author_id = \(userID)", logger: logger)
                if !isPrivate {
                    // Public again: everyone who asked follows now.
                    var requesters: [Int64] = []
                    for try await requester in try await connection.query(
                        "SELECT requester_id FROM follow_requests WHERE target_id = \(userID) ORDER BY id",
                        logger: logger
                    ).decode(Int64.self) {
                        requesters.append(requester)
                    }
                    for requester in requesters {
                        try await Self.endRequest(
                            connection, requester: requester, target: userID, changes: changes, logger: logger)
                        try await Self.follow(
                            connection, follower: requester, followee: userID, changes: changes, logger: logger)
                    }
                }
                changes.publish(.privacyChanged(user: userID, isPrivate: isPrivate))
            }
            guard let profile = try await Self.profile(connection, id: userID, viewer: userID, logger: logger) else {
                throw StoreError.notFound("user")
            }
            return profile
        }
    }

    public func followRequests(viewer: Int64, page: PageRequest) async throws -> PageResult<UserSummary> {
        try await read { [logger] connection in
            var sql = SQL(
                "SELECT u.id, u.username, u.display_name, u.avatar_file, r.id FROM follow_requests r"
                    + " JOIN users u ON u.id = r.requester_id AND u.status = 'active'")
            sql.append(" WHERE r.target_id = \(sql.bind(viewer))")
            return try await PostRows.page(
                connection, sql, key: "r.id", descending: false, page: page, logger: logger, decode: PostRows.summary)
        }
    }

    public func answerFollowRequest(viewer: Int64, username: String, approve: Bool) async throws {
        try await write { [logger] connection, changes in
            guard let requester = try await Self.userID(connection, username: username, logger: logger),
                try await Self.endRequest(
                    connection, requester: requester, target: viewer, changes: changes, logger: logger)
            else { throw StoreError.notFound("request") }
            if approve {
                try await Self.follow(
                    connection, follower: requester, followee: viewer, changes: changes, logger: logger)
            }
        }
    }

    public func setMute(viewer: Int64, username: String, muting: Bool) async throws -> Bool {
        try await write { [logger] connection, changes in
            guard let target = try await Self.userID(connection, username: username, logger: logger) else {
                throw StoreError.notFound("user")
            }
            if target == viewer { throw StoreError.cannotMuteSelf }
            if try await Self.block(connection, between: viewer, and: target, logger: logger) == .blockedBy {
                throw StoreError.notFound("user")
            }
            // Locks the muted user, as a new post of theirs does: the fan-out of a post committing before sees the
            // mute's feed change, one committing after sees the mute.
            try await connection.query("SELECT 1 FROM users WHERE id = \(target) FOR NO KEY UPDATE", logger: logger)
            if muting {
                let added = try await connection.query(
                    """
                    INSERT INTO mutes (muter_id, muted_id, created_at) VALUES (\(viewer), \(target), \(Self.now))
                    ON CONFLICT DO NOTHING RETURNING 1
                    """, logger: logger
                ).collect()
                guard !added.isEmpty else { return true }
                try await connection.query(
                    """
                    DELETE FROM feed WHERE user_id = \(viewer)
                      AND post_id IN (SELECT id FROM posts WHERE author_id = \(target))
                    """, logger: logger)
            } else {
                let removed = try await connection.query(
                    "DELETE FROM mutes WHERE muter_id = \(viewer) AND muted_id = \(target) RETURNING 1", logger: logger
                ).collect()
                guard !removed.isEmpty else { return false }
                try await connection.query(
                    """
                    INSERT INTO feed (user_id, post_id) SELECT \(viewer), id FROM posts WHERE author_id = \(target)
                      AND EXISTS (SELECT 1 FROM follows WHERE follower_id = \(viewer) AND followee_id = \(target))
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
            changes.publish(.muteChanged(muter: viewer, muted: target, muting: muting))
            return muting
        }
    }

    public func setBlock(viewer: Int64, username: String, blocking: Bool, domain: String?) async throws -> Bool {
        let (blocked, liked) = try await write { [logger] connection, changes -> (Bool, [Int64]) in
            guard let target = try await Self.userID(connection, username: username, logger: logger) else {
                throw StoreError.notFound("user")
            }
            if target == viewer { throw StoreError.cannotBlockSelf }
            // Both users locked in ID order, and `FOR UPDATE`: a follow between them waits for the block and then
            // sees it, and so does a like on the blocker's posts (`set_likes` holds its posts' authors `FOR KEY
            // SHARE`), so that none slips in between the block and the taking back below.
            try await connection.query(
                "SELECT 1 FROM users WHERE id IN (\(viewer), \(target)) ORDER BY id FOR UPDATE", logger: logger)
            guard blocking else {
                let removed = try await connection.query(
                    "DELETE FROM blocks WHERE blocker_id = \(viewer) AND blocked_id = \(target) RETURNING 1",
                    logger: logger
                ).collect()
                if !removed.isEmpty {
                    changes.publish(.blockChanged(blocker: viewer, blocked: target, blocking: false))
                }
                return (false, [])
            }
            let added = try await connection.query(
                """
                INSERT INTO blocks (blocker_id, blocked_id, created_at, domain)
                VALUES (\(viewer), \(target), \(Self.now), \(domain))
                ON CONFLICT DO NOTHING RETURNING 1
                """, logger: logger
            ).collect()
            guard !added.isEmpty else { return (true, []) }
            for (follower, followee) in [(viewer, target), (target, viewer)] {
                try await Self.endRequest(
                    connection, requester: follower, target: followee, changes: changes, logger: logger)
                let removed = try await connection.query(
                    "DELETE FROM follows WHERE follower_id = \(follower) AND followee_id = \(followee) RETURNING 1",
                    logger: logger
                ).collect()
                if !removed.isEmpty {
                    changes.publish(.followChanged(follower: follower, followee: followee, following: false))
                }
            }
            let comments = try await connection.query(
                """
                SELECT c.id, c.post_id FROM comments c JOIN posts p ON p.id = c.post_id
                WHERE c.author_id = \(target) AND p.author_id = \(viewer)
                """, logger: logger
            ).collect()
            for row in comments {
                let (id, postID) = try row.decode((Int64, Int64).self)
                _ = try await Self.removeComment(connection, id: id, postID: postID, changes: changes, logger: logger)
            }
            var liked: [Int64] = []
            for try await post in try await connection.query(
                """
                SELECT l.post_id FROM likes l JOIN posts p ON p.id = l.post_id
                WHERE l.user_id = \(target) AND p.author_id = \(viewer)
                """, logger: logger
            ).decode(Int64.self) {
                liked.append(post)
            }
            changes.publish(.blockChanged(blocker: viewer, blocked: target, blocking: true))
            return (true, liked.isEmpty ? [] : [target] + liked)
        }
        // The blocked user's likes on the viewer's posts go as unlikes, through the statement every toggle uses
        // (it writes their changes); the block stands already, so no new like of theirs gets in meanwhile.
        if let target = liked.first {
            let toggles = liked.dropFirst().map { LikeBatches.Toggle(postID: $0, viewer: target, liked: false) }
            for result in await sendLikes(Array(toggles), anyPost: true) {
                if case .failure(let error) = result, (error as? StoreError) != .notFound("post") { throw error }
            }
        }
        return blocked
    }

    public func blockedByDomain(viewer: Int64, domain: String) async throws -> [String] {
        try await read { [logger] connection in
            var names: [String] = []
            for try await name in try await connection.query(
                """
                SELECT u.username FROM blocks b JOIN users u ON u.id = b.blocked_id
                WHERE b.blocker_id = \(viewer) AND b.domain = \(domain)
                """, logger: logger
            ).decode(String.self) {
                names.append(name)
            }
            return names
        }
    }

    public func setDomainBlock(viewer: Int64, domain: String, blocking: Bool) async throws -> Bool {
        try await write { [logger] connection, _ in
            let changed =
                blocking
                ? try await connection.query(
                    """
                    INSERT INTO user_domain_blocks (user_id, domain, created_at) VALUES (\(viewer), \(domain), \(Self.now))
                    ON CONFLICT DO NOTHING RETURNING 1
                    """, logger: logger
                ).collect()
                : try await connection.query(
                    "DELETE FROM user_domain_blocks WHERE user_id = \(viewer) AND domain = \(domain) RETURNING 1",
                    logger: logger
                ).collect()
            return !changed.isEmpty
        }
    }

    public func domainBlocks(viewer: Int64) async throws -> [String] {
        try await read { [logger] connection in
            var domains: [String] = []
            for try await domain in try await connection.query(
                "SELECT domain FROM user_domain_blocks WHERE user_id = \(viewer) ORDER BY domain", logger: logger
            ).decode(String.self) {
                domains.append(domain)
            }
            return domains
        }
    }

    public func domainBlockers(ofHost host: String) async throws -> [(user: Int64, domain: String)] {
        let domains = DomainName.covering(host)
        guard !domains.isEmpty else { return [] }
        return try await read { [logger] connection in
            var found: [(user: Int64, domain: String)] = []
            for try await (user, domain) in try await connection.query(
                "SELECT user_id, domain FROM user_domain_blocks WHERE domain = ANY(\(domains))", logger: logger
            ).decode((Int64, String).self) {
                found.append((user, domain))
            }
            return found
        }
    }

    public func blocks(viewer: Int64, page: PageRequest) async throws -> PageResult<UserSummary> {
        try await relationList(table: "blocks", owner: "blocker_id", other: "blocked_id", viewer: viewer, page: page)
    }

    /// The people a relation of `viewer`'s (`table`, a mute or a block, whose `owner` column is the viewer) names in
    /// its `other` column, most recent first.
    private func relationList(table: String, owner: String, other: String, viewer: Int64, page: PageRequest)
        async throws -> PageResult<UserSummary>
    {
        try await read { [logger] connection in
            var sql = SQL(
                "SELECT u.id, u.username, u.display_name, u.avatar_file, r.id FROM \(table) r"
                    + " JOIN users u ON u.id = r.\(other) AND u.status = 'active'")
            sql.append(" WHERE r.\(owner) = \(sql.bind(viewer))")
            return try await PostRows.page(
                connection, sql, key: "r.id", descending: true, page: page, logger: logger, decode: PostRows.summary)
        }
    }

    public func blockRelations(viewer: Int64, among users: [Int64]) async throws -> (
        blocking: Set<Int64>, blockedBy: Set<Int64>
    ) {
        guard !users.isEmpty else { return ([], []) }
        return try await read { [logger] connection in
            var blocking = Set<Int64>()
            var blockedBy = Set<Int64>()
            let rows = try await connection.query(
                """
                SELECT blocker_id, blocked_id FROM blocks
                WHERE (blocker_id = \(viewer) AND blocked_id = ANY(\(users)))
                   OR (blocked_id = \(viewer) AND blocker_id = ANY(\(users)))
                """, logger: logger)
            for try await (blocker, blocked) in rows.decode((Int64, Int64).self) {
                if blocker == viewer { blocking.insert(blocked) } else { blockedBy.insert(blocker) }
            }
            return (blocking, blockedBy)
        }
    }

    public func mutes(viewer: Int64, page: PageRequest) async throws -> PageResult<UserSummary> {
        try await relationList(table: "mutes", owner: "muter_id", other: "muted_id", viewer: viewer, page: page)
    }

    public func muted(by viewer: Int64, among users: [Int64]) async throws -> Set<Int64> {
        guard !users.isEmpty else { return [] }
        return try await read { [logger] connection in
            let rows = try await connection.query(
                "SELECT muted_id FROM mutes WHERE muter_id = \(viewer) AND muted_id = ANY(\(users))", logger: logger)
            var muted = Set<Int64>()
            for try await id in rows.decode(Int64.self) { muted.insert(id) }
            return muted
        }
    }

    public func followers(username: String, viewer: Int64, page: PageRequest) async throws
        -> PageResult<UserSummary>?
    {
        try await followList(username: username, viewer: viewer, page: page, match: "followee_id", show: "follower_id")
    }

    public func following(username: String, viewer: Int64, page: PageRequest) async throws
        -> PageResult<UserSummary>?
    {
        try await followList(username: username, viewer: viewer, page: page, match: "follower_id", show: "followee_id")
    }

    private func followList(username: String, viewer: Int64, page: PageRequest, match: String, show: String)
        async throws
        -> PageResult<UserSummary>?
    {
        try await read { [logger] connection in
            guard let id = try await Self.userID(connection, username: username, logger: logger),
                try await Self.block(connection, between: viewer, and: id, logger: logger) != .blockedBy
            else { return nil }
            var sql = SQL(
                """
                SELECT u.id, u.username, u.display_name, u.avatar_file, f.id
                FROM follows f JOIN users u ON u.id = f.\(show) AND u.status = 'active'
                """)
            sql.append(" WHERE f.\(match) = \(sql.bind(id)) AND ")
            sql.append(Visibility.unblocked(viewer: String(viewer), user: "u.id"))
            return try await PostRows.page(
                connection, sql, key: "f.id", descending: true, page: page, logger: logger, decode: PostRows.summary)
        }
    }
}

import Foundation
import GRDB
import MakestagramAPI
import MakestagramStore

extension SQLiteStore {
    /// The profile of the user whose `column` (`u.id` or `u.username`) equals `value`, as `viewer` sees it.
    static func profile(_ db: Database, column: String, value: any DatabaseValueConvertible, viewer: Int64)
        throws -> UserProfile?
    {
        try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT u.*, EXISTS (SELECT 1 FROM follows WHERE follower_id = :viewer AND followee_id = u.id) AS vf,
                      EXISTS (SELECT 1 FROM mutes WHERE muter_id = :viewer AND muted_id = u.id) AS vm,
                      EXISTS (SELECT 1 FROM blocks WHERE blocker_id = :viewer AND blocked_id = u.id) AS vb,
                      EXISTS (SELECT 1 FROM follow_requests WHERE requester_id = :viewer AND target_id = u.id) AS vr
                    FROM users u WHERE \(column) = :value AND u.status = 'active'
                      AND NOT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = u.id AND blocked_id = :viewer)
                    """),
            arguments: ["viewer": viewer, "value": value]
        ).map { row in
            let avatar: String? = row["avatar_file"]
            let large: String? = row["avatar_large_file"]
            return UserProfile(
                id: row["id"], username: row["username"], displayName: row["display_name"],
                avatarURL: avatar.map(MediaPath.url(for:)), avatarLargeURL: large.map(MediaPath.url(for:)),
                bio: row["bio"], postCount: row["post_count"],
                followerCount: row["follower_count"], followingCount: row["following_count"],
                viewerFollows: row["vf"], createdAt: Date(timeIntervalSince1970: row["created_at"]),
                hideLikeCounts: viewer == row["id"] ? row["hide_like_counts"] as Bool : nil,
                isModerator: viewer == row["id"] ? row["is_moderator"] as Bool : nil,
                viewerMutes: viewer == row["id"] ? nil : row["vm"] as Bool,
                viewerBlocks: viewer == row["id"] ? nil : row["vb"] as Bool, isPrivate: row["is_private"],
                viewerRequested: viewer == row["id"] ? nil : row["vr"] as Bool)
        }
    }

    static func userID(_ db: Database, username: String) throws -> Int64? {
        try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM users WHERE username = ? AND status = 'active'"),
            arguments: [username])
    }

    /// Which way a block stands between `viewer` and `other`, if one does.
    static func block(_ db: Database, between viewer: Int64, and other: Int64) throws -> BlockDirection? {
        let blocker = try Int64.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT blocker_id FROM blocks WHERE (blocker_id = ?1 AND blocked_id = ?2)
                      OR (blocker_id = ?2 AND blocked_id = ?1) LIMIT 1
                    """), arguments: [viewer, other])
        return blocker.map { $0 == viewer ? .blocking : .blockedBy }
    }

    public func profile(username: String, viewer: Int64) async throws -> UserProfile? {
        try await read { db in try Self.profile(db, column: "u.username", value: username, viewer: viewer) }
    }

    public func profile(id: Int64, viewer: Int64) async throws -> UserProfile? {
        try await read { db in try Self.profile(db, column: "u.id", value: id, viewer: viewer) }
    }

    public func updateProfile(userID: Int64, displayName: String?, bio: String?) async throws -> UserProfile {
        try await write { db in
            guard let old = try Self.profile(db, column: "u.id", value: userID, viewer: userID) else {
                throw StoreError.notFound("user")
            }
            try db.execute(
                sql: "UPDATE users SET display_name = ?, bio = ?, search_key = ? WHERE id = ?",
                arguments: [
                    displayName ?? old.displayName, bio ?? old.bio,
                    PeopleSearch.key(username: old.username, displayName: displayName ?? old.displayName), userID,
                ])
            guard let profile = try Self.profile(db, column: "u.id", value: userID, viewer: userID) else {
                throw StoreError.notFound("user")
            }
            if profile.displayName != old.displayName || profile.bio != old.bio {
                try publishOnCommit(db, .profileChanged(user: profile.summary))
            }
            return profile
        }
    }

    public func setHidesLikeCounts(userID: Int64, hidden: Bool) async throws -> UserProfile {
        try await write { db in
            try db.execute(sql: "UPDATE users SET hide_like_counts = ? WHERE id = ?", arguments: [hidden, userID])
            guard let profile = try Self.profile(db, column: "u.id", value: userID, viewer: userID) else {
                throw StoreError.notFound("user")
            }
            return profile
        }
    }

    public func setAvatar(userID: Int64, files: AvatarFiles?) async throws -> (
        profile: UserProfile, replaced: [String]
    ) {
        try await write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT avatar_file, avatar_large_file FROM users WHERE id = ?", arguments: [userID])
            else { throw StoreError.notFound("user") }
            let replaced = [row["avatar_file"], row["avatar_large_file"]].compactMap { $0 as String? }
            try db.execute(
                sql: "UPDATE users SET avatar_file = ?, avatar_large_file = ? WHERE id = ?",
                arguments: [files?.small, files?.large, userID])
            guard let profile = try Self.profile(db, column: "u.id", value: userID, viewer: userID) else {
                throw StoreError.notFound("user")
            }
            try publishOnCommit(db, .profileChanged(user: profile.summary))
            return (profile, replaced)
        }
    }

    public var renderEpoch: UInt64 { database.caches.renderEpoch }

    public func searchUsers(query: String, viewer: Int64, limit: Int) async throws -> [UserSummary] {
        let folded = PeopleSearch.fold(query)
        guard !folded.isEmpty else { return [] }
        let followed = "EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = :viewer AND f.followee_id = u.id)"
        if folded.unicodeScalars.count < PeopleSearch.substringMinimum {
            // Usernames that start with the query, from their index: at most ``PeopleSearch/candidateLimit``, and
            // every one among the people the viewer follows.
            return try await read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        WITH candidates(id) AS (
                          SELECT id FROM (SELECT id FROM users WHERE username LIKE :prefix ESCAPE '\\' LIMIT :cap)
                          UNION
                          SELECT f.followee_id FROM follows f JOIN users fu ON fu.id = f.followee_id
                          WHERE f.follower_id = :viewer AND fu.username LIKE :prefix ESCAPE '\\')
                        SELECT u.id AS author_id, u.username, u.display_name, u.avatar_file
                        FROM candidates c JOIN users u ON u.id = c.id WHERE u.status = 'active'
                          AND \(Visibility.unblocked(viewer: ":viewer", user: "u.id"))
                        ORDER BY u.username <> :query, \(followed) DESC, length(u.username), u.username LIMIT :limit
                        """,
                    arguments: [
                        "prefix": PeopleSearch.likeEscaped(folded) + "%", "query": folded, "viewer": viewer,
                        "cap": PeopleSearch.candidateLimit, "limit": limit,
                    ]
                ).map(PostQuery.author)
            }
        }
        // GLOB, as FTS5's trigram index serves GLOB and LIKE but not LIKE with ESCAPE; keys and query are folded.
        // The candidates: at most ``PeopleSearch/candidateLimit`` from the trigram index (or, for two characters,
        // the pairs' index) and as many usernames starting with the query (from the usernames' index), and every
        // match among those the viewer follows.
        let glob = Self.globEscaped(folded)
        let anywhere =
            folded.unicodeScalars.count < PeopleSearch.trigramMinimum
            ? "SELECT user_id AS id FROM user_bigrams WHERE gram = :query LIMIT :cap"
            : "SELECT rowid AS id FROM users_search WHERE search_key GLOB :contains LIMIT :cap"
        let arguments: StatementArguments = [
            "contains": "*\(glob)*", "prefix": PeopleSearch.likeEscaped(folded) + "%", "query": folded,
            "starts": "\(glob)*", "nameStarts": "*\n\(glob)*", "wordStarts": "* \(glob)*", "viewer": viewer,
            "cap": PeopleSearch.candidateLimit, "limit": limit,
        ]
        return try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    WITH candidates(id) AS (
                      SELECT id FROM (\(anywhere))
                      UNION
                      SELECT id FROM (SELECT id FROM users WHERE username LIKE :prefix ESCAPE '\\' LIMIT :cap)
                      UNION
                      SELECT f.followee_id FROM follows f JOIN users fu ON fu.id = f.followee_id
                      WHERE f.follower_id = :viewer AND fu.search_key GLOB :contains)
                    SELECT u.id AS author_id, u.username, u.display_name, u.avatar_file
                    FROM candidates c JOIN users u ON u.id = c.id WHERE u.status = 'active'
                      AND \(Visibility.unblocked(viewer: ":viewer", user: "u.id"))
                    ORDER BY CASE
                        WHEN u.username = :query OR u.search_key = u.username || char(10) || :query THEN 0
                        WHEN u.search_key GLOB :starts OR u.search_key GLOB :nameStarts
                          OR u.search_key GLOB :wordStarts THEN 1
                        ELSE 2 END,
                      \(followed) DESC, length(u.username), u.username
                    LIMIT :limit
                    """,
                arguments: arguments
            ).map(PostQuery.author)
        }
    }

    /// `text` as a GLOB pattern matching itself.
    static func globEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "*", "?", "[": escaped += "[\(character)]"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    public func suggestedUsers(viewer: Int64, related: Int64?, limit: Int) async throws -> [UserSummary] {
        let related = related ?? 0
        return try await read { db in
            let ranked = try Row.fetchAll(
                db,
                sql: """
                    SELECT u.id AS author_id, u.username, u.display_name, u.avatar_file,
                      max(f.follower_id = :related) AS related_follows, count(*) AS mutual
                    FROM follows f JOIN users u ON u.id = f.followee_id
                    WHERE (f.follower_id IN (SELECT followee_id FROM follows WHERE follower_id = :viewer)
                        OR f.follower_id = :related)
                      AND f.followee_id NOT IN (:viewer, :related) AND u.status = 'active'
                      AND \(Visibility.unblocked(viewer: ":viewer", user: "u.id"))
                      AND NOT EXISTS (SELECT 1 FROM follows m WHERE m.follower_id = :viewer AND m.followee_id = u.id)
                    GROUP BY u.id
                    ORDER BY related_follows DESC, mutual DESC, u.follower_count DESC, u.id LIMIT :limit
                    """,
                arguments: ["viewer": viewer, "related": related, "limit": limit]
            ).map(PostQuery.author)
            guard ranked.count < limit else { return ranked }
            let popular = try Row.fetchAll(
                db,
                sql: """
                    SELECT u.id AS author_id, u.username, u.display_name, u.avatar_file FROM users u
                    WHERE u.id NOT IN (:viewer, :related) AND u.status = 'active'
                      AND \(Visibility.unblocked(viewer: ":viewer", user: "u.id"))
                      AND NOT EXISTS (SELECT 1 FROM follows m WHERE m.follower_id = :viewer AND m.followee_id = u.id)
                    ORDER BY u.follower_count DESC, u.id LIMIT :limit
                    """,
                arguments: ["viewer": viewer, "related": related, "limit": limit + ranked.count]
            ).map(PostQuery.author)
            return FollowSuggestions.merge(ranked: ranked, popular: popular, limit: limit)
        }
    }

    public func followed(by viewer: Int64, among users: [Int64]) async throws -> Set<Int64> {
        guard !users.isEmpty else { return [] }
        let list = "[" + users.map(String.init).joined(separator: ",") + "]"
        return try await read { db in
            Set(
                try Int64.fetchAll(
                    db,
                    sql: """
                        SELECT followee_id FROM follows
                        WHERE follower_id = ? AND followee_id IN (SELECT value FROM json_each(?))
                        """,
                    arguments: [viewer, list]))
        }
    }

    /// Gives every user without a search key (new in migration v9, or written by another tool) its key.
    static func fillSearchKeys(_ db: Database) throws {
        let rows = try Row.fetchAll(
            db, sql: "SELECT id, username, display_name FROM users WHERE search_key IS NULL")
        let update = try db.makeStatement(sql: "UPDATE users SET search_key = ? WHERE id = ?")
        for row in rows {
            let key = PeopleSearch.key(username: row["username"], displayName: row["display_name"])
            try update.execute(arguments: [key, row["id"] as Int64])
        }
    }

    public func setFollow(viewer: Int64, username: String, following: Bool) async throws -> FollowState {
        try await write { db in
            guard let target = try Self.userID(db, username: username) else { throw StoreError.notFound("user") }
            if target == viewer { throw StoreError.cannotFollowSelf }
            var requested = false
            if following {
                switch try Self.block(db, between: viewer, and: target) {
                case .blocking: throw StoreError.youBlockThem
                case .blockedBy: throw StoreError.notFound("user")
                case nil: break
                }
                let follows =
                    try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM follows WHERE follower_id = ? AND followee_id = ?)",
                        arguments: [viewer, target]) ?? false
                let isPrivate =
                    try Bool.fetchOne(
                        db,
                        sql: """
                            SELECT is_private OR EXISTS (SELECT 1 FROM remote_actors WHERE user_id = id)
                            FROM users WHERE id = ?
                            """, arguments: [target]) ?? false
                if !follows && isPrivate {
                    try db.execute(
                        sql: """
                            INSERT OR IGNORE INTO follow_requests (requester_id, target_id, created_at) VALUES (?, ?, ?)
                            """, arguments: [viewer, target, Self.now])
                    if db.changesCount > 0 {
                        try publishOnCommit(
                            db, .followRequestChanged(requester: viewer, target: target, pending: true))
                    }
                    requested = true
                } else {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO follows (follower_id, followee_id, created_at) VALUES (?, ?, ?)",
                        arguments: [viewer, target, Self.now])
                    if db.changesCount > 0 {
                        try publishOnCommit(db, .followChanged(follower: viewer, followee: target, following: true))
                    }
                }
            } else {
                if try Self.block(db, between: viewer, and: target) == .blockedBy { throw StoreError.notFound("user") }
                try Self.endRequest(db, requester: viewer, target: target, publish: publishOnCommit)
                try db.execute(
                    sql: "DELETE FROM follows WHERE follower_id = ? AND followee_id = ?", arguments: [viewer, target])
                if db.changesCount > 0 {
                    try publishOnCommit(db, .followChanged(follower: viewer, followee: target, following: false))
                }
            }
            let count = try Int.fetchOne(db, sql: "SELECT follower_count FROM users WHERE id = ?", arguments: [target])
            return FollowState(
                followerCount: count ?? 0, viewerFollows: following && !requested, viewerRequested: requested)
        }
    }

    /// Ends `requester`'s request to follow `target`, if there is one, and publishes it; answers whether there was.
    @discardableResult
    static func endRequest(
        _ db: Database, requester: Int64, target: Int64,
        publish: (Database, @autoclosure () throws -> StoreEvent) throws -> Void
    ) throws -> Bool {
        try db.execute(
            sql: "DELETE FROM follow_requests WHERE requester_id = ? AND target_id = ?", arguments: [requester, target])
        guard db.changesCount > 0 else { return false }
        try publish(db, .followRequestChanged(requester: requester, target: target, pending: false))
        return true
    }

    public func setPrivate(userID: Int64, isPrivate: Bool) async throws -> UserProfile {
        try await write { db in
            try db.execute(
                sql: "UPDATE users SET is_private = ? WHERE id = ? AND is_private <> ?",
                arguments: [isPrivate, userID, isPrivate])
            if db.changesCount > 0 {
                // The photos' URLs change (signed, or plain again): every post is a new version, for every cache
                // and screen that holds one to read it again.
                try db.execute(sql: "UPDATE posts SET version = version + 1 WHERE author_id = ?", arguments: [userID])
                if !isPrivate {
                    // Public again: everyone who asked follows now.
                    let requesters = try Int64.fetchAll(
                        db, sql: "SELECT requester_id FROM follow_requests WHERE target_id = ? ORDER BY id",
                        arguments: [userID])
                    for requester in requesters {
                        try Self.approve(db, requester: requester, target: userID, publish: publishOnCommit)
                    }
                }
                try publishOnCommit(db, .privacyChanged(user: userID, isPrivate: isPrivate))
            }
            guard let profile = try Self.profile(db, column: "u.id", value: userID, viewer: userID) else {
                throw StoreError.notFound("user")
            }
            return profile
        }
    }

    /// Turns a pending request into a follow, publishing both changes.
    static func approve(
        _ db: Database, requester: Int64, target: Int64,
        publish: (Database, @autoclosure () throws -> StoreEvent) throws -> Void
    ) throws {
        guard try endRequest(db, requester: requester, target: target, publish: publish) else { return }
        try db.execute(
            sql: "INSERT OR IGNORE INTO follows (follower_id, followee_id, created_at) VALUES (?, ?, ?)",
            arguments: [requester, target, Self.now])
        if db.changesCount > 0 {
            try publish(db, .followChanged(follower: requester, followee: target, following: true))
        }
    }

    public func followRequests(viewer: Int64, page: PageRequest) async throws -> PageResult<UserSummary> {
        try await read { db in
            try fetchPage(
                db,
                sql: { condition in
                    """
                    SELECT r.id AS page_key, u.id AS author_id, u.username, u.display_name, u.avatar_file
                    FROM follow_requests r JOIN users u ON u.id = r.requester_id AND u.status = 'active'
                    WHERE r.target_id = :id AND \(condition) ORDER BY r.id ASC LIMIT :limit
                    """
                }, arguments: ["id": viewer], key: "r.id", descending: false, page: page, decode: PostQuery.author)
        }
    }

    public func answerFollowRequest(viewer: Int64, username: String, approve: Bool) async throws {
        try await write { db in
            guard let requester = try Self.userID(db, username: username),
                try Bool.fetchOne(
                    db,
                    sql: "SELECT EXISTS (SELECT 1 FROM follow_requests WHERE requester_id = ? AND target_id = ?)",
                    arguments: [requester, viewer]) == true
            else { throw StoreError.notFound("request") }
            if approve {
                try Self.approve(db, requester: requester, target: viewer, publish: publishOnCommit)
            } else {
                try Self.endRequest(db, requester: requester, target: viewer, publish: publishOnCommit)
            }
        }
    }

    public func setMute(viewer: Int64, username: String, muting: Bool) async throws -> Bool {
        try await write { db in
            guard let target = try Self.userID(db, username: username) else { throw StoreError.notFound("user") }
            if target == viewer { throw StoreError.cannotMuteSelf }
            if try Self.block(db, between: viewer, and: target) == .blockedBy { throw StoreError.notFound("user") }
            if muting {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO mutes (muter_id, muted_id, created_at) VALUES (?, ?, ?)",
                    arguments: [viewer, target, Self.now])
                guard db.changesCount > 0 else { return true }
                try db.execute(
                    sql: "DELETE FROM feed WHERE user_id = ? AND post_id IN (SELECT id FROM posts WHERE author_id = ?)",
                    arguments: [viewer, target])
            } else {
                try db.execute(
                    sql: "DELETE FROM mutes WHERE muter_id = ? AND muted_id = ?", arguments: [viewer, target])
                guard db.changesCount > 0 else { return false }
                try db.execute(
                    sql: """
                        INSERT OR IGNORE INTO feed (user_id, post_id) SELECT ?1, id FROM posts WHERE author_id = ?2
                          AND EXISTS (SELECT 1 FROM follows WHERE follower_id = ?1 AND followee_id = ?2)
                        """, arguments: [viewer, target])
            }
            try publishOnCommit(db, .muteChanged(muter: viewer, muted: target, muting: muting))
            return muting
        }
    }

    public func setBlock(viewer: Int64, username: String, blocking: Bool, domain: String?) async throws -> Bool {
        try await write { db in
            guard let target = try Self.userID(db, username: username) else { throw StoreError.notFound("user") }
            if target == viewer { throw StoreError.cannotBlockSelf }
            guard blocking else {
                try db.execute(
                    sql: "DELETE FROM blocks WHERE blocker_id = ? AND blocked_id = ?", arguments: [viewer, target])
                guard db.changesCount > 0 else { return false }
                try publishOnCommit(db, .blockChanged(blocker: viewer, blocked: target, blocking: false))
                return false
            }
            // Someone the viewer is blocked by may still block them back: both blocks stand.
            try db.execute(
                sql: "INSERT OR IGNORE INTO blocks (blocker_id, blocked_id, created_at, domain) VALUES (?, ?, ?, ?)",
                arguments: [viewer, target, Self.now, domain])
            guard db.changesCount > 0 else { return true }
            for (follower, followee) in [(viewer, target), (target, viewer)] {
                try Self.endRequest(db, requester: follower, target: followee, publish: publishOnCommit)
                try db.execute(
                    sql: "DELETE FROM follows WHERE follower_id = ? AND followee_id = ?",
                    arguments: [follower, followee])
                if db.changesCount > 0 {
                    try publishOnCommit(db, .followChanged(follower: follower, followee: followee, following: false))
                }
            }
            // Their likes and comments on the viewer's posts go, each as the unlike or deletion it is.
            let liked = try Int64.fetchAll(
                db,
                sql:
                    "SELECT l.post_id FROM likes l JOIN posts p ON p.id = l.post_id WHERE l.user_id = ? AND p.author_id = ?",
                arguments: [target, viewer])
            for post in liked { _ = try changeLike(db, postID: post, viewer: target, liked: false, anyPost: true) }
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT c.id, c.post_id FROM comments c JOIN posts p ON p.id = c.post_id
                    WHERE c.author_id = ? AND p.author_id = ?
                    """, arguments: [target, viewer])
            {
                try removeComment(db, id: row["id"], postID: row["post_id"])
            }
            try publishOnCommit(db, .blockChanged(blocker: viewer, blocked: target, blocking: true))
            return true
        }
    }

    public func blockedByDomain(viewer: Int64, domain: String) async throws -> [String] {
        try await read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT u.username FROM blocks b JOIN users u ON u.id = b.blocked_id
                    WHERE b.blocker_id = ? AND b.domain = ?
                    """, arguments: [viewer, domain])
        }
    }

    public func setDomainBlock(viewer: Int64, domain: String, blocking: Bool) async throws -> Bool {
        try await write { db in
            if blocking {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO user_domain_blocks (user_id, domain, created_at) VALUES (?, ?, ?)",
                    arguments: [viewer, domain, Self.now])
            } else {
                try db.execute(
                    sql: "DELETE FROM user_domain_blocks WHERE user_id = ? AND domain = ?", arguments: [viewer, domain])
            }
            return db.changesCount > 0
        }
    }

    public func domainBlocks(viewer: Int64) async throws -> [String] {
        try await read { db in
            try String.fetchAll(
                db, sql: "SELECT domain FROM user_domain_blocks WHERE user_id = ? ORDER BY domain", arguments: [viewer])
        }
    }

    public func domainBlockers(ofHost host: String) async throws -> [(user: Int64, domain: String)] {
        let domains = DomainName.covering(host)
        guard !domains.isEmpty else { return [] }
        let list = String(decoding: try JSONEncoder().encode(domains), as: UTF8.self)
        return try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT user_id, domain FROM user_domain_blocks WHERE domain IN (SELECT value FROM json_each(?))
                    """, arguments: [list]
            ).map { (user: $0["user_id"], domain: $0["domain"]) }
        }
    }

    public func blocks(viewer: Int64, page: PageRequest) async throws -> PageResult<UserSummary> {
        try await relationList(table: "blocks", owner: "blocker_id", other: "blocked_id", viewer: viewer, page: page)
    }

    public func blockRelations(viewer: Int64, among users: [Int64]) async throws -> (
        blocking: Set<Int64>, blockedBy: Set<Int64>
    ) {
        guard !users.isEmpty else { return ([], []) }
        let list = "[" + users.map(String.init).joined(separator: ",") + "]"
        return try await read { db in
            var relations: (blocking: Set<Int64>, blockedBy: Set<Int64>) = ([], [])
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT blocker_id, blocked_id FROM blocks
                    WHERE (blocker_id = ?1 AND blocked_id IN (SELECT value FROM json_each(?2)))
                       OR (blocked_id = ?1 AND blocker_id IN (SELECT value FROM json_each(?2)))
                    """, arguments: [viewer, list])
            {
                let (blocker, blocked): (Int64, Int64) = (row[0], row[1])
                if blocker == viewer { relations.blocking.insert(blocked) } else { relations.blockedBy.insert(blocker) }
            }
            return relations
        }
    }

    public func mutes(viewer: Int64, page: PageRequest) async throws -> PageResult<UserSummary> {
        try await relationList(table: "mutes", owner: "muter_id", other: "muted_id", viewer: viewer, page: page)
    }

    /// The people a relation of `viewer`'s (`table`, a mute or a block, whose `owner` column is the viewer) names in
    /// its `other` column, most recent first.
    private func relationList(table: String, owner: String, other: String, viewer: Int64, page: PageRequest)
        async throws -> PageResult<UserSummary>
    {
        try await read { db in
            try fetchPage(
                db,
                sql: { condition in
                    """
                    SELECT r.id AS page_key, u.id AS author_id, u.username, u.display_name, u.avatar_file
                    FROM \(table) r JOIN users u ON u.id = r.\(other) AND u.status = 'active'
                    WHERE r.\(owner) = :id AND \(condition) ORDER BY r.id DESC LIMIT :limit
                    """
                }, arguments: ["id": viewer], key: "r.id", descending: true, page: page, decode: PostQuery.author)
        }
    }

    public func muted(by viewer: Int64, among users: [Int64]) async throws -> Set<Int64> {
        guard !users.isEmpty else { return [] }
        let list = "[" + users.map(String.init).joined(separator: ",") + "]"
        return try await read { db in
            Set(
                try Int64.fetchAll(
                    db,
                    sql:
                        "SELECT muted_id FROM mutes WHERE muter_id = ? AND muted_id IN (SELECT value FROM json_each(?))",
                    arguments: [viewer, list]))
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
        try await read { db in
            guard let id = try Self.userID(db, username: username),
                try Self.block(db, between: viewer, and: id) != .blockedBy
            else { return nil }
            return try fetchPage(
                db,
                sql: { condition in
                    """
                    SELECT f.id AS page_key, u.id AS author_id, u.username, u.display_name, u.avatar_file
                    FROM follows f JOIN users u ON u.id = f.\(show) AND u.status = 'active'
                    WHERE f.\(match) = :id AND \(Visibility.unblocked(viewer: ":viewer", user: "u.id"))
                      AND \(condition) ORDER BY f.id DESC LIMIT :limit
                    """
                }, arguments: ["id": id, "viewer": viewer], key: "f.id", descending: true, page: page,
                decode: PostQuery.author)
        }
    }
}

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
              u.created_at, u.avatar_large_file, u.bio, u.hide_like_counts
            """)
        sql.append(", EXISTS (SELECT 1 FROM follows WHERE follower_id = \(sql.bind(viewer)) AND followee_id = u.id)")
        if let id {
            sql.append(" FROM users u WHERE u.id = \(sql.bind(id))")
        } else {
            sql.append(" FROM users u WHERE u.username = \(sql.bind(folded(username ?? "")))")
        }
        if lock { sql.append(" FOR NO KEY UPDATE") }
        let rows = try await connection.query(sql.query, logger: logger).collect()
        return try rows.first.map { row in
            let (
                id, username, displayName, avatar, posts, followers, following, createdAt, large, bio, hides, follows
            ) =
                try row.decode(
                    (Int64, String, String, String?, Int, Int, Int, Double, String?, String, Bool, Bool).self)
            return UserProfile(
                id: id, username: username, displayName: displayName, avatarURL: avatar.map(MediaPath.url(for:)),
                avatarLargeURL: large.map(MediaPath.url(for:)), bio: bio, postCount: posts, followerCount: followers,
                followingCount: following, viewerFollows: follows,
                createdAt: Date(timeIntervalSince1970: createdAt), hideLikeCounts: viewer == id ? hides : nil)
        }
    }

    static func userID(_ connection: PostgresConnection, username: String, logger: Logger) async throws -> Int64? {
        let rows = try await connection.query(
            "SELECT id FROM users WHERE username = \(folded(username))", logger: logger
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
            try await connection.query(
                "UPDATE users SET display_name = \(name), bio = \(bio) WHERE id = \(userID)", logger: logger)
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

    public func searchUsers(prefix: String, limit: Int) async throws -> [UserSummary] {
        let escaped = Self.folded(prefix).replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
        return try await read { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT id, username, display_name, avatar_file FROM users
                WHERE username LIKE \(escaped + "%") ESCAPE '\\' ORDER BY length(username), username LIMIT \(limit)
                """, logger: logger)
            var users: [UserSummary] = []
            for try await row in rows { users.append(try PostRows.summary(row)) }
            return users
        }
    }

    public func setFollow(viewer: Int64, username: String, following: Bool) async throws -> FollowState {
        try await write { [logger] connection, changes in
            guard let target = try await Self.userID(connection, username: username, logger: logger) else {
                throw StoreError.notFound("user")
            }
            if target == viewer { throw StoreError.cannotFollowSelf }
            let changed: [PostgresRow]
            if following {
                changed = try await connection.query(
                    """
                    INSERT INTO follows (follower_id, followee_id, created_at) VALUES (\(viewer), \(target), \(Self.now))
                    ON CONFLICT DO NOTHING RETURNING 1
                    """, logger: logger
                ).collect()
            } else {
                changed = try await connection.query(
                    "DELETE FROM follows WHERE follower_id = \(viewer) AND followee_id = \(target) RETURNING 1",
                    logger: logger
                ).collect()
            }
            if !changed.isEmpty {
                changes.publish(.followChanged(follower: viewer, followee: target, following: following))
            }
            let rows = try await connection.query(
                "SELECT follower_count FROM users WHERE id = \(target)", logger: logger
            ).collect()
            return FollowState(followerCount: try rows.first?.decode(Int.self) ?? 0, viewerFollows: following)
        }
    }

    public func followers(username: String, page: PageRequest) async throws -> PageResult<UserSummary>? {
        try await followList(username: username, page: page, match: "followee_id", show: "follower_id")
    }

    public func following(username: String, page: PageRequest) async throws -> PageResult<UserSummary>? {
        try await followList(username: username, page: page, match: "follower_id", show: "followee_id")
    }

    private func followList(username: String, page: PageRequest, match: String, show: String) async throws
        -> PageResult<UserSummary>?
    {
        try await read { [logger] connection in
            guard let id = try await Self.userID(connection, username: username, logger: logger) else { return nil }
            var sql = SQL(
                """
                SELECT u.id, u.username, u.display_name, u.avatar_file, f.id
                FROM follows f JOIN users u ON u.id = f.\(show)
                """)
            sql.append(" WHERE f.\(match) = \(sql.bind(id))")
            return try await PostRows.page(
                connection, sql, key: "f.id", descending: true, page: page, logger: logger, decode: PostRows.summary)
        }
    }
}

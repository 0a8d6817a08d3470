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
                    SELECT u.*, EXISTS (SELECT 1 FROM follows WHERE follower_id = :viewer AND followee_id = u.id) AS vf
                    FROM users u WHERE \(column) = :value
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
                hideLikeCounts: viewer == row["id"] ? row["hide_like_counts"] as Bool : nil)
        }
    }

    static func userID(_ db: Database, username: String) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM users WHERE username = ?"), arguments: [username])
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
                sql: "UPDATE users SET display_name = ?, bio = ? WHERE id = ?",
                arguments: [displayName ?? old.displayName, bio ?? old.bio, userID])
            guard let profile = try Self.profile(db, column: "u.id", value: userID, viewer: userID) else {
                throw StoreError.notFound("user")
            }
            if profile.displayName != old.displayName || profile.bio != old.bio {
                publishOnCommit(db, .profileChanged(user: profile.summary))
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
            publishOnCommit(db, .profileChanged(user: profile.summary))
            return (profile, replaced)
        }
    }

    public var renderEpoch: UInt64 { database.caches.renderEpoch }

    public func searchUsers(prefix: String, limit: Int) async throws -> [UserSummary] {
        let escaped = prefix.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
        return try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id AS author_id, username, display_name, avatar_file FROM users
                    WHERE username LIKE ? ESCAPE '\\' ORDER BY length(username), username LIMIT ?
                    """,
                arguments: [escaped + "%", limit]
            ).map(PostQuery.author)
        }
    }

    public func setFollow(viewer: Int64, username: String, following: Bool) async throws -> FollowState {
        try await write { db in
            guard let target = try Self.userID(db, username: username) else { throw StoreError.notFound("user") }
            if target == viewer { throw StoreError.cannotFollowSelf }
            if following {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO follows (follower_id, followee_id, created_at) VALUES (?, ?, ?)",
                    arguments: [viewer, target, Self.now])
            } else {
                try db.execute(
                    sql: "DELETE FROM follows WHERE follower_id = ? AND followee_id = ?", arguments: [viewer, target])
            }
            if db.changesCount > 0 {
                publishOnCommit(db, .followChanged(follower: viewer, followee: target, following: following))
            }
            let count = try Int.fetchOne(db, sql: "SELECT follower_count FROM users WHERE id = ?", arguments: [target])
            return FollowState(followerCount: count ?? 0, viewerFollows: following)
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
        try await read { db in
            guard let id = try Self.userID(db, username: username) else { return nil }
            return try fetchPage(
                db,
                sql: { condition in
                    """
                    SELECT f.id AS page_key, u.id AS author_id, u.username, u.display_name, u.avatar_file
                    FROM follows f JOIN users u ON u.id = f.\(show)
                    WHERE f.\(match) = :id AND \(condition) ORDER BY f.id DESC LIMIT :limit
                    """
                }, arguments: ["id": id], key: "f.id", descending: true, page: page, decode: PostQuery.author)
        }
    }
}

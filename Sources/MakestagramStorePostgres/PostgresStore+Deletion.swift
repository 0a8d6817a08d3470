import Foundation
import MakestagramAPI
import MakestagramStore
import PostgresNIO

extension PostgresStore {
    public func beginAccountDeletion(userID: Int64, reserveUsernameUntil: Date) async throws {
        try await write { [logger] connection, changes in
            let rows = try await connection.query(
                "SELECT username, status FROM users WHERE id = \(userID) FOR UPDATE", logger: logger
            ).collect()
            guard let row = rows.first else { throw StoreError.notFound("user") }
            let (username, status) = try row.decode((String, String).self)
            guard status != AccountStatus.deleting.rawValue else { return }
            try await connection.query(
                "UPDATE users SET status = 'deleting', status_changed_at = \(Self.now) WHERE id = \(userID)",
                logger: logger)
            try await connection.query(
                """
                INSERT INTO reserved_usernames (username, until)
                VALUES (\(username), \(reserveUsernameUntil.timeIntervalSince1970))
                ON CONFLICT (username) DO UPDATE SET until = excluded.until
                """, logger: logger)
            // Other servers are told, signed with its key, before the row (and the key) goes.
            try await connection.query(
                """
                INSERT INTO account_farewells (user_id)
                SELECT \(userID) WHERE EXISTS (SELECT 1 FROM change_consumers WHERE name = \(Self.federationConsumer))
                  AND EXISTS (SELECT 1 FROM actor_keys WHERE user_id = \(userID))
                ON CONFLICT DO NOTHING
                """, logger: logger)
            try await Self.hide(connection, userID: userID, status: .deleting, changes: changes, logger: logger)
        }
    }

    /// Publishes that the user is no longer seen, then ends their sessions (their connections close as the account
    /// closes, before the log-outs arrive).
    static func hide(
        _ connection: PostgresConnection, userID: Int64, status: AccountStatus, changes: Changes, logger: Logger
    ) async throws {
        let username = try await connection.query(
            "SELECT username FROM users WHERE id = \(userID)", logger: logger
        ).collect().first?.decode(String.self)
        changes.publish(.userRemoved(user: userID, username: username ?? "", status: status))
        let ended = try await connection.query(
            "DELETE FROM sessions WHERE user_id = \(userID) RETURNING token_hash", logger: logger
        ).collect()
        for row in ended { changes.publish(.sessionEnded(tokenHash: Array(try row.decode(Data.self)))) }
    }

    public func accountsBeingDeleted() async throws -> [Int64] {
        try await read { [logger] connection in
            var ids: [Int64] = []
            for try await id in try await connection.query(
                "SELECT id FROM users WHERE status = 'deleting' ORDER BY status_changed_at, id", logger: logger
            ).decode(Int64.self) {
                ids.append(id)
            }
            return ids
        }
    }

    public func continueAccountDeletion(userID: Int64, limit: Int) async throws -> AccountDeletionStep {
        let budget = max(limit, 1)
        let status = try await read { [logger] connection in
            try await connection.query("SELECT status FROM users WHERE id = \(userID)", logger: logger).collect()
                .first?.decode(String.self)
        }
        guard status == AccountStatus.deleting.rawValue else { return AccountDeletionStep(files: [], finished: true) }

        // The user's likes go as unlikes, through the statement every toggle uses (it writes their changes).
        let liked = try await read { [logger] connection in
            var posts: [Int64] = []
            for try await post in try await connection.query(
                "SELECT post_id FROM likes WHERE user_id = \(userID) LIMIT \(budget)", logger: logger
            ).decode(Int64.self) {
                posts.append(post)
            }
            return posts
        }
        if !liked.isEmpty {
            let toggles = liked.map { LikeBatches.Toggle(postID: $0, viewer: userID, liked: false) }
            for result in await sendLikes(toggles, anyPost: true) {
                // A post deleted meanwhile took the like with it.
                if case .failure(let error) = result, (error as? StoreError) != .notFound("post") { throw error }
            }
            return AccountDeletionStep(files: [], finished: false)
        }

        return try await write { [logger] connection, changes in
            var budget = budget
            let comments = try await connection.query(
                "SELECT id, post_id FROM comments WHERE author_id = \(userID) LIMIT \(budget)", logger: logger
            ).collect()
            for row in comments {
                let (id, postID) = try row.decode((Int64, Int64).self)
                _ = try await Self.removeComment(connection, id: id, postID: postID, changes: changes, logger: logger)
                budget -= 1
            }
            let reports = try await connection.query(
                """
                DELETE FROM reports WHERE id IN (
                  SELECT id FROM reports WHERE reporter_id = \(userID) LIMIT \(max(budget, 0))) RETURNING 1
                """, logger: logger
            ).collect()
            budget -= reports.count
            guard budget > 0 else { return AccountDeletionStep(files: [], finished: false) }

            // The user's posts, while their followers still follow (so each leaves their timelines as it goes). A
            // post costs its likes, comments and readers: at least one post goes per batch.
            var files: [String] = []
            let readers =
                try await connection.query("SELECT follower_count FROM users WHERE id = \(userID)", logger: logger)
                .collect().first?.decode(Int.self) ?? 0
            let posts = try await connection.query(
                """
                SELECT id, full_file, thumb_file, variants, version, like_count + comment_count FROM posts
                WHERE author_id = \(userID) ORDER BY id LIMIT \(budget) FOR UPDATE SKIP LOCKED
                """, logger: logger
            ).collect()
            for row in posts {
                let (id, full, thumb, variants, version, rows) = try row.decode(
                    (Int64, String, String, String?, Int64, Int).self)
                files += try await Self.removePost(
                    connection, id: id, author: userID, version: version, files: [full, thumb], variants: variants,
                    changes: changes, logger: logger)
                budget -= 1 + readers + rows
                if budget <= 0 { break }
            }
            guard budget > 0 else { return AccountDeletionStep(files: files, finished: false) }

            let follows = try await connection.query(
                """
                DELETE FROM follows WHERE id IN (
                  SELECT id FROM follows WHERE follower_id = \(userID) OR followee_id = \(userID) LIMIT \(budget))
                RETURNING follower_id, followee_id
                """, logger: logger
            ).collect()
            for row in follows {
                let (follower, followee) = try row.decode((Int64, Int64).self)
                changes.publish(.followChanged(follower: follower, followee: followee, following: false))
            }
            budget -= follows.count
            guard budget > 0 else { return AccountDeletionStep(files: files, finished: false) }

            // While federation runs, the row stays until other servers have been told (its farewell).
            let farewell = try await connection.query(
                """
                SELECT EXISTS (SELECT 1 FROM change_consumers WHERE name = \(Self.federationConsumer))
                  AND (EXISTS (SELECT 1 FROM account_farewells WHERE user_id = \(userID))
                    OR EXISTS (SELECT 1 FROM deliveries WHERE sender_id = \(userID) AND state = 'pending'))
                """, logger: logger
            ).collect().first?.decode(Bool.self)
            if farewell == true { return AccountDeletionStep(files: files, finished: false, waiting: true) }

            // Nothing of theirs is left that others see: the user row goes, with what cascades from it.
            for row in try await connection.query(
                "DELETE FROM media_uploads WHERE user_id = \(userID) RETURNING \(unescaped: Self.uploadColumns)",
                logger: logger
            ).collect() {
                let upload = try Self.upload(row)
                files += [upload.full.fileName, upload.thumb.fileName] + upload.variants.map(\.fileName)
            }
            let deleted = try await connection.query(
                "DELETE FROM users WHERE id = \(userID) RETURNING avatar_file, avatar_large_file", logger: logger
            ).collect()
            for row in deleted {
                let (small, large) = try row.decode((String?, String?).self)
                files += [small, large].compactMap { $0 }
            }
            return AccountDeletionStep(files: files, finished: true)
        }
    }
}

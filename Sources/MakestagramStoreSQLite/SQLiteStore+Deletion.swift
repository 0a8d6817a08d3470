import Foundation
import GRDB
import MakestagramAPI
import MakestagramStore

extension SQLiteStore {
    public func beginAccountDeletion(userID: Int64, reserveUsernameUntil: Date) async throws {
        try await write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT username, status FROM users WHERE id = ?", arguments: [userID])
            else { throw StoreError.notFound("user") }
            guard (row["status"] as String) != AccountStatus.deleting.rawValue else { return }
            try db.execute(
                sql: "UPDATE users SET status = 'deleting', status_changed_at = ? WHERE id = ?",
                arguments: [Self.now, userID])
            try db.execute(
                sql: "INSERT OR REPLACE INTO reserved_usernames (username, until) VALUES (?, ?)",
                arguments: [row["username"] as String, reserveUsernameUntil.timeIntervalSince1970])
            // Other servers are told, signed with its key, before the row (and the key) goes.
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO account_farewells (user_id)
                    SELECT ? WHERE EXISTS (SELECT 1 FROM change_consumers WHERE name = ?)
                      AND EXISTS (SELECT 1 FROM actor_keys WHERE user_id = ?)
                    """, arguments: [userID, Self.federationConsumer, userID])
            try hide(db, userID: userID, status: .deleting)
        }
    }

    /// Publishes that the user is no longer seen, then ends their sessions (their connections close as the account
    /// closes, before the log-outs arrive).
    func hide(_ db: Database, userID: Int64, status: AccountStatus) throws {
        let username = try String.fetchOne(db, sql: "SELECT username FROM users WHERE id = ?", arguments: [userID])
        try publishOnCommit(db, .userRemoved(user: userID, username: username ?? "", status: status))
        let ended = try Data.fetchAll(
            db, sql: "DELETE FROM sessions WHERE user_id = ? RETURNING token_hash", arguments: [userID])
        for hash in ended { try publishOnCommit(db, .sessionEnded(tokenHash: Array(hash))) }
    }

    public func accountsBeingDeleted() async throws -> [Int64] {
        try await read { db in
            try Int64.fetchAll(
                db, sql: "SELECT id FROM users WHERE status = 'deleting' ORDER BY status_changed_at, id")
        }
    }

    public func continueAccountDeletion(userID: Int64, limit: Int) async throws -> AccountDeletionStep {
        try await write { db in
            let status = try String.fetchOne(db, sql: "SELECT status FROM users WHERE id = ?", arguments: [userID])
            guard status == AccountStatus.deleting.rawValue else {
                return AccountDeletionStep(files: [], finished: true)
            }
            var budget = max(limit, 1)

            // What the user did to others' posts and people: each published, so counts and screens follow.
            for postID in try Int64.fetchAll(
                db, sql: "SELECT post_id FROM likes WHERE user_id = ? LIMIT ?", arguments: [userID, budget])
            {
                _ = try changeLike(db, postID: postID, viewer: userID, liked: false, anyPost: true)
                budget -= 1
            }
            for row in try Row.fetchAll(
                db, sql: "SELECT id, post_id FROM comments WHERE author_id = ? LIMIT ?",
                arguments: [userID, max(budget, 0)])
            {
                try removeComment(db, id: row["id"], postID: row["post_id"])
                budget -= 1
            }
            try db.execute(
                sql: "DELETE FROM reports WHERE id IN (SELECT id FROM reports WHERE reporter_id = ? LIMIT ?)",
                arguments: [userID, max(budget, 0)])
            budget -= db.changesCount
            guard budget > 0 else { return AccountDeletionStep(files: [], finished: false) }

            // The user's posts, while their followers still follow (so each leaves their timelines as it goes). A
            // post costs its likes, comments and readers: at least one post goes per batch.
            var files: [String] = []
            let readers =
                try Int.fetchOne(
                    db, sql: "SELECT follower_count FROM users WHERE id = ?", arguments: [userID]) ?? 0
            let posts = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, full_file, thumb_file, variants, version, like_count + comment_count AS rows
                    FROM posts WHERE author_id = ? ORDER BY id LIMIT ?
                    """, arguments: [userID, budget])
            for row in posts {
                files += try removePost(db, id: row["id"], author: userID, row: row)
                budget -= 1 + readers + (row["rows"] as Int)
                if budget <= 0 { break }
            }
            guard budget > 0 else { return AccountDeletionStep(files: files, finished: false) }

            for row in try Row.fetchAll(
                db,
                sql: "SELECT follower_id, followee_id FROM follows WHERE follower_id = ?1 OR followee_id = ?1 LIMIT ?2",
                arguments: [userID, budget])
            {
                let follower: Int64 = row["follower_id"]
                let followee: Int64 = row["followee_id"]
                try db.execute(
                    sql: "DELETE FROM follows WHERE follower_id = ? AND followee_id = ?",
                    arguments: [follower, followee])
                try publishOnCommit(db, .followChanged(follower: follower, followee: followee, following: false))
                budget -= 1
            }
            guard budget > 0 else { return AccountDeletionStep(files: files, finished: false) }

            // While federation runs, the row stays until other servers have been told (its farewell).
            let farewell = try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM change_consumers WHERE name = ?)
                      AND (EXISTS (SELECT 1 FROM account_farewells WHERE user_id = ?)
                        OR EXISTS (SELECT 1 FROM deliveries WHERE sender_id = ? AND state = 'pending'))
                    """, arguments: [Self.federationConsumer, userID, userID])
            if farewell == true { return AccountDeletionStep(files: files, finished: false, waiting: true) }

            // Nothing of theirs is left that others see: the user row goes, with what cascades from it.
            if let avatar = try Row.fetchOne(
                db, sql: "SELECT avatar_file, avatar_large_file FROM users WHERE id = ?", arguments: [userID])
            {
                files += [avatar["avatar_file"], avatar["avatar_large_file"]].compactMap { $0 as String? }
            }
            for row in try Row.fetchAll(
                db, sql: "DELETE FROM media_uploads WHERE user_id = ? RETURNING *", arguments: [userID])
            {
                let upload = Self.upload(row)
                files += [upload.full.fileName, upload.thumb.fileName] + upload.variants.map(\.fileName)
            }
            try db.execute(sql: "DELETE FROM users WHERE id = ?", arguments: [userID])
            return AccountDeletionStep(files: files, finished: true)
        }
    }
}

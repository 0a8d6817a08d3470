import Foundation
import GRDB
import MakestagramAPI
import MakestagramStore

extension SQLiteStore {
    public func dataExport(userID: Int64) async throws -> UserDataExport? {
        // One read transaction: every list as of the same moment.
        try await read { db in
            guard let profile = try Self.profile(db, column: "u.id", value: userID, viewer: userID) else { return nil }
            let avatar = try String.fetchOne(
                db, sql: "SELECT avatar_large_file FROM users WHERE id = ?", arguments: [userID])
            var posts = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, created_at, caption, edited_at, like_count, comment_count, width, height, full_file,
                      alt_text
                    FROM posts WHERE author_id = ? ORDER BY id
                    """,
                arguments: [userID]
            ).map { row in
                UserDataExport.ExportedPost(
                    id: row["id"], createdAt: Date(timeIntervalSince1970: row["created_at"]), caption: row["caption"],
                    editedAt: (row["edited_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
                    likeCount: row["like_count"], commentCount: row["comment_count"], width: row["width"],
                    height: row["height"], fileName: row["full_file"], altText: row["alt_text"])
            }
            var morePhotos: [Int64: [UserDataExport.ExportedPhoto]] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT pp.post_id, pp.full_file, pp.width, pp.height, pp.alt_text
                    FROM posts p JOIN post_photos pp ON pp.post_id = p.id WHERE p.author_id = ?
                    ORDER BY pp.post_id, pp.position
                    """, arguments: [userID])
            {
                morePhotos[row["post_id"], default: []].append(
                    UserDataExport.ExportedPhoto(
                        fileName: row["full_file"], width: row["width"], height: row["height"],
                        altText: row["alt_text"]))
            }
            posts = posts.map { post in
                var post = post
                post.morePhotos = morePhotos[post.id] ?? []
                return post
            }
            let comments = try Row.fetchAll(
                db, sql: "SELECT id, post_id, text, created_at FROM comments WHERE author_id = ? ORDER BY id",
                arguments: [userID]
            ).map { row in
                UserDataExport.ExportedComment(
                    id: row["id"], postId: row["post_id"], text: row["text"],
                    createdAt: Date(timeIntervalSince1970: row["created_at"]))
            }
            let following = try String.fetchAll(
                db,
                sql: """
                    SELECT u.username FROM follows f JOIN users u ON u.id = f.followee_id
                    WHERE f.follower_id = ? ORDER BY f.id
                    """, arguments: [userID])
            let followers = try String.fetchAll(
                db,
                sql: """
                    SELECT u.username FROM follows f JOIN users u ON u.id = f.follower_id
                    WHERE f.followee_id = ? ORDER BY f.id
                    """, arguments: [userID])
            let muted = try String.fetchAll(
                db,
                sql: """
                    SELECT u.username FROM mutes m JOIN users u ON u.id = m.muted_id
                    WHERE m.muter_id = ? ORDER BY m.id
                    """, arguments: [userID])
            let blocked = try String.fetchAll(
                db,
                sql: """
                    SELECT u.username FROM blocks b JOIN users u ON u.id = b.blocked_id
                    WHERE b.blocker_id = ? ORDER BY b.id
                    """, arguments: [userID])
            return UserDataExport(
                profile: profile, avatarFile: avatar, posts: posts, comments: comments, following: following,
                followers: followers, muted: muted, blocked: blocked)
        }
    }
}

import Foundation
import MakestagramAPI
import MakestagramStore
import PostgresNIO

extension PostgresStore {
    public func dataExport(userID: Int64) async throws -> UserDataExport? {
        try await read { [logger] connection in
            // One snapshot: every list as of the same moment.
            try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            do {
                let export = try await Self.dataExport(connection, userID: userID, logger: logger)
                try await connection.query("COMMIT", logger: logger)
                return export
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    private static func dataExport(_ connection: PostgresConnection, userID: Int64, logger: Logger) async throws
        -> UserDataExport?
    {
        guard let profile = try await Self.profile(connection, id: userID, viewer: userID, logger: logger) else {
            return nil
        }
        var avatar: String?
        for try await file in try await connection.query(
            "SELECT avatar_large_file FROM users WHERE id = \(userID)", logger: logger
        ).decode(String?.self) { avatar = file }
        var posts: [UserDataExport.ExportedPost] = []
        let postRows = try await connection.query(
            """
            SELECT id, created_at, caption, edited_at, like_count, comment_count, width, height, full_file, alt_text
            FROM posts WHERE author_id = \(userID) ORDER BY id
            """, logger: logger)
        for try await (id, created, caption, edited, likes, comments, width, height, file, altText) in postRows.decode(
            (Int64, Double, String, Double?, Int, Int, Int, Int, String, String?).self)
        {
            posts.append(
                UserDataExport.ExportedPost(
                    id: id, createdAt: Date(timeIntervalSince1970: created), caption: caption,
                    editedAt: edited.map(Date.init(timeIntervalSince1970:)), likeCount: likes, commentCount: comments,
                    width: width, height: height, fileName: file, altText: altText))
        }
        var morePhotos: [Int64: [UserDataExport.ExportedPhoto]] = [:]
        for try await (post, file, width, height, altText) in try await connection.query(
            """
            SELECT pp.post_id, pp.full_file, pp.width, pp.height, pp.alt_text
            FROM posts p JOIN post_photos pp ON pp.post_id = p.id WHERE p.author_id = \(userID)
            ORDER BY pp.post_id, pp.position
            """, logger: logger
        ).decode((Int64, String, Int, Int, String?).self) {
            morePhotos[post, default: []].append(
                UserDataExport.ExportedPhoto(fileName: file, width: width, height: height, altText: altText))
        }
        for index in posts.indices { posts[index].morePhotos = morePhotos[posts[index].id] ?? [] }
        var comments: [UserDataExport.ExportedComment] = []
        let commentRows = try await connection.query(
            "SELECT id, post_id, text, created_at FROM comments WHERE author_id = \(userID) ORDER BY id",
            logger: logger)
        for try await (id, post, text, created) in commentRows.decode((Int64, Int64, String, Double).self) {
            comments.append(
                UserDataExport.ExportedComment(
                    id: id, postId: post, text: text, createdAt: Date(timeIntervalSince1970: created)))
        }
        var following: [String] = []
        for try await name in try await connection.query(
            """
            SELECT u.username FROM follows f JOIN users u ON u.id = f.followee_id
            WHERE f.follower_id = \(userID) ORDER BY f.id
            """, logger: logger
        ).decode(String.self) { following.append(name) }
        var followers: [String] = []
        for try await name in try await connection.query(
            """
            SELECT u.username FROM follows f JOIN users u ON u.id = f.follower_id
            WHERE f.followee_id = \(userID) ORDER BY f.id
            """, logger: logger
        ).decode(String.self) { followers.append(name) }
        var muted: [String] = []
        for try await name in try await connection.query(
            """
            SELECT u.username FROM mutes m JOIN users u ON u.id = m.muted_id
            WHERE m.muter_id = \(userID) ORDER BY m.id
            """, logger: logger
        ).decode(String.self) { muted.append(name) }
        var blocked: [String] = []
        for try await name in try await connection.query(
            """
            SELECT u.username FROM blocks b JOIN users u ON u.id = b.blocked_id
            WHERE b.blocker_id = \(userID) ORDER BY b.id
            """, logger: logger
        ).decode(String.self) { blocked.append(name) }
        return UserDataExport(
            profile: profile, avatarFile: avatar, posts: posts, comments: comments, following: following,
            followers: followers, muted: muted, blocked: blocked)
    }
}

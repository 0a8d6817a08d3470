import Foundation
import GRDB
import MakestagramAPI
import MakestagramStore

extension SQLiteStore {
    static func upload(_ row: Row) -> NewPost {
        NewPost(
            authorID: row["user_id"], caption: "", width: row["width"], height: row["height"],
            full: StoredVariant(fileName: row["full_file"], width: row["full_width"], height: row["full_height"]),
            thumb: StoredVariant(fileName: row["thumb_file"], width: row["thumb_width"], height: row["thumb_height"]),
            variants: StoredVariant.variants(column: row["variants"]), altText: row["alt_text"])
    }

    public func createMediaUpload(_ image: NewPost, expiringBefore: Date) async throws -> (
        id: Int64, expired: [String]
    ) {
        try await write { db in
            let expired = try Row.fetchAll(
                db, sql: "DELETE FROM media_uploads WHERE created_at < ? RETURNING *",
                arguments: [expiringBefore.timeIntervalSince1970]
            ).flatMap { row -> [String] in
                let upload = Self.upload(row)
                return [upload.full.fileName, upload.thumb.fileName] + upload.variants.map(\.fileName)
            }
            try db.execute(
                sql: """
                    INSERT INTO media_uploads (user_id, width, height, full_file, full_width, full_height, thumb_file,
                      thumb_width, thumb_height, variants, alt_text, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    image.authorID, image.width, image.height, image.full.fileName, image.full.width,
                    image.full.height, image.thumb.fileName, image.thumb.width, image.thumb.height,
                    StoredVariant.column(image.variants), image.altText, Self.now,
                ])
            return (db.lastInsertedRowID, expired)
        }
    }

    public func mediaUpload(id: Int64, userID: Int64) async throws -> NewPost? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM media_uploads WHERE id = ? AND user_id = ?", arguments: [id, userID]
            ).map(Self.upload)
        }
    }

    public func setUploadAltText(id: Int64, userID: Int64, altText: String?) async throws -> NewPost {
        try await write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "UPDATE media_uploads SET alt_text = ? WHERE id = ? AND user_id = ? RETURNING *",
                    arguments: [altText, id, userID])
            else { throw StoreError.notFound("media") }
            return Self.upload(row)
        }
    }

    public func createPost(fromUpload id: Int64, userID: Int64, caption: String) async throws -> Post {
        try await write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "DELETE FROM media_uploads WHERE id = ? AND user_id = ? RETURNING *",
                    arguments: [id, userID])
            else { throw StoreError.notFound("media") }
            var post = Self.upload(row)
            post.caption = caption
            return try insertPost(db, post)
        }
    }
}

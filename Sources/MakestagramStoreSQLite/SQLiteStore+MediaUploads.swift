import Foundation
import GRDB
import MakestagramAPI
import MakestagramStore

extension SQLiteStore {
    static func upload(_ row: Row) -> StoredPhoto {
        StoredPhoto(
            width: row["width"], height: row["height"],
            full: StoredVariant(fileName: row["full_file"], width: row["full_width"], height: row["full_height"]),
            thumb: StoredVariant(fileName: row["thumb_file"], width: row["thumb_width"], height: row["thumb_height"]),
            variants: StoredVariant.variants(column: row["variants"]), altText: row["alt_text"])
    }

    public func createMediaUpload(_ photo: StoredPhoto, userID: Int64, expiringBefore: Date) async throws -> (
        id: Int64, expired: [String]
    ) {
        try await write { db in
            let expired = try Row.fetchAll(
                db, sql: "DELETE FROM media_uploads WHERE created_at < ? RETURNING *",
                arguments: [expiringBefore.timeIntervalSince1970]
            ).flatMap { Self.upload($0).fileNames }
            try db.execute(
                sql: """
                    INSERT INTO media_uploads (user_id, width, height, full_file, full_width, full_height, thumb_file,
                      thumb_width, thumb_height, variants, alt_text, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    userID, photo.width, photo.height, photo.full.fileName, photo.full.width,
                    photo.full.height, photo.thumb.fileName, photo.thumb.width, photo.thumb.height,
                    StoredVariant.column(photo.variants), photo.altText, Self.now,
                ])
            return (db.lastInsertedRowID, expired)
        }
    }

    public func mediaUpload(id: Int64, userID: Int64) async throws -> StoredPhoto? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM media_uploads WHERE id = ? AND user_id = ?", arguments: [id, userID]
            ).map(Self.upload)
        }
    }

    public func setUploadAltText(id: Int64, userID: Int64, altText: String?) async throws -> StoredPhoto {
        try await write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "UPDATE media_uploads SET alt_text = ? WHERE id = ? AND user_id = ? RETURNING *",
                    arguments: [altText, id, userID])
            else { throw StoreError.notFound("media") }
            return Self.upload(row)
        }
    }

    public func deleteMediaUpload(id: Int64, userID: Int64) async throws -> [String] {
        try await write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "DELETE FROM media_uploads WHERE id = ? AND user_id = ? RETURNING *",
                    arguments: [id, userID])
            else { throw StoreError.notFound("media") }
            return Self.upload(row).fileNames
        }
    }

    public func createPost(fromUploads ids: [Int64], userID: Int64, caption: String) async throws -> Post {
        try await write { db in try insertPost(db, fromUploads: ids, userID: userID, caption: caption) }
    }

    /// Posts the uploads `ids` of `userID`, forgetting them, within the transaction of `db`.
    func insertPost(
        _ db: Database, fromUploads ids: [Int64], userID: Int64, caption: String, original: String? = nil
    ) throws -> Post {
        var photos: [StoredPhoto] = []
        for id in ids {
            guard
                let row = try Row.fetchOne(
                    db, sql: "DELETE FROM media_uploads WHERE id = ? AND user_id = ? RETURNING *",
                    arguments: [id, userID])
            else { throw StoreError.notFound("media") }
            photos.append(Self.upload(row))
        }
        guard !photos.isEmpty else { throw StoreError.notFound("media") }
        return try insertPost(db, NewPost(authorID: userID, caption: caption, photos: photos), original: original)
    }
}

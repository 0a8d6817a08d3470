import Foundation
import MakestagramAPI
import MakestagramStore
import PostgresNIO

extension PostgresStore {
    static let uploadColumns = """
        user_id, width, height, full_file, full_width, full_height, thumb_file, thumb_width, thumb_height, variants,
        alt_text
        """

    static func upload(_ row: PostgresRow) throws -> StoredPhoto {
        let (_, width, height, full, fullWidth, fullHeight, thumb, thumbWidth, thumbHeight, variants, altText) =
            try row.decode((Int64, Int, Int, String, Int, Int, String, Int, Int, String?, String?).self)
        return StoredPhoto(
            width: width, height: height, full: StoredVariant(fileName: full, width: fullWidth, height: fullHeight),
            thumb: StoredVariant(fileName: thumb, width: thumbWidth, height: thumbHeight),
            variants: StoredVariant.variants(column: variants), altText: altText)
    }

    public func createMediaUpload(_ photo: StoredPhoto, userID: Int64, expiringBefore: Date) async throws -> (
        id: Int64, expired: [String]
    ) {
        try await write { [logger] connection, _ in
            var expired: [String] = []
            for row in try await connection.query(
                """
                DELETE FROM media_uploads WHERE created_at < \(expiringBefore.timeIntervalSince1970)
                RETURNING \(unescaped: Self.uploadColumns)
                """, logger: logger
            ).collect() {
                expired += try Self.upload(row).fileNames
            }
            let rows = try await connection.query(
                """
                INSERT INTO media_uploads (user_id, width, height, full_file, full_width, full_height, thumb_file,
                  thumb_width, thumb_height, variants, alt_text, created_at)
                VALUES (\(userID), \(photo.width), \(photo.height), \(photo.full.fileName),
                  \(photo.full.width), \(photo.full.height), \(photo.thumb.fileName), \(photo.thumb.width),
                  \(photo.thumb.height), \(StoredVariant.column(photo.variants)), \(photo.altText), \(Self.now))
                RETURNING id
                """, logger: logger
            ).collect()
            return (try rows[0].decode(Int64.self), expired)
        }
    }

    public func mediaUpload(id: Int64, userID: Int64) async throws -> StoredPhoto? {
        try await read { [logger] connection in
            try await connection.query(
                """
                SELECT \(unescaped: Self.uploadColumns) FROM media_uploads WHERE id = \(id) AND user_id = \(userID)
                """, logger: logger
            ).collect().first.map(Self.upload)
        }
    }

    public func setUploadAltText(id: Int64, userID: Int64, altText: String?) async throws -> StoredPhoto {
        try await write { [logger] connection, _ in
            let rows = try await connection.query(
                """
                UPDATE media_uploads SET alt_text = \(altText) WHERE id = \(id) AND user_id = \(userID)
                RETURNING \(unescaped: Self.uploadColumns)
                """, logger: logger
            ).collect()
            guard let row = rows.first else { throw StoreError.notFound("media") }
            return try Self.upload(row)
        }
    }

    public func deleteMediaUpload(id: Int64, userID: Int64) async throws -> [String] {
        try await write { [logger] connection, _ in
            let rows = try await connection.query(
                """
                DELETE FROM media_uploads WHERE id = \(id) AND user_id = \(userID)
                RETURNING \(unescaped: Self.uploadColumns)
                """, logger: logger
            ).collect()
            guard let row = rows.first else { throw StoreError.notFound("media") }
            return try Self.upload(row).fileNames
        }
    }

    public func createPost(fromUploads ids: [Int64], userID: Int64, caption: String) async throws -> Post {
        try await write { connection, changes in
            try await self.insertPost(connection, fromUploads: ids, userID: userID, caption: caption, changes: changes)
        }
    }

    /// Posts the uploads `ids` of `userID`, forgetting them, within the transaction on `connection`.
    func insertPost(
        _ connection: PostgresConnection, fromUploads ids: [Int64], userID: Int64, caption: String, changes: Changes,
        original: String? = nil
    ) async throws -> Post {
        var photos: [StoredPhoto] = []
        for id in ids {
            let rows = try await connection.query(
                """
                DELETE FROM media_uploads WHERE id = \(id) AND user_id = \(userID)
                RETURNING \(unescaped: Self.uploadColumns)
                """, logger: logger
            ).collect()
            guard let row = rows.first else { throw StoreError.notFound("media") }
            photos.append(try Self.upload(row))
        }
        guard !photos.isEmpty else { throw StoreError.notFound("media") }
        return try await Self.insertPost(
            connection, NewPost(authorID: userID, caption: caption, photos: photos), original: original,
            signing: self.mediaSigning, changes: changes, logger: logger)
    }
}

import Foundation
import MakestagramAPI
import MakestagramStore
import PostgresNIO

extension PostgresStore {
    static let uploadColumns = """
        user_id, width, height, full_file, full_width, full_height, thumb_file, thumb_width, thumb_height, variants,
        alt_text
        """

    static func upload(_ row: PostgresRow) throws -> NewPost {
        let (user, width, height, full, fullWidth, fullHeight, thumb, thumbWidth, thumbHeight, variants, altText) =
            try row.decode((Int64, Int, Int, String, Int, Int, String, Int, Int, String?, String?).self)
        return NewPost(
            authorID: user, caption: "", width: width, height: height,
            full: StoredVariant(fileName: full, width: fullWidth, height: fullHeight),
            thumb: StoredVariant(fileName: thumb, width: thumbWidth, height: thumbHeight),
            variants: StoredVariant.variants(column: variants), altText: altText)
    }

    public func createMediaUpload(_ image: NewPost, expiringBefore: Date) async throws -> (
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
                let upload = try Self.upload(row)
                expired += [upload.full.fileName, upload.thumb.fileName] + upload.variants.map(\.fileName)
            }
            let rows = try await connection.query(
                """
                INSERT INTO media_uploads (user_id, width, height, full_file, full_width, full_height, thumb_file,
                  thumb_width, thumb_height, variants, alt_text, created_at)
                VALUES (\(image.authorID), \(image.width), \(image.height), \(image.full.fileName),
                  \(image.full.width), \(image.full.height), \(image.thumb.fileName), \(image.thumb.width),
                  \(image.thumb.height), \(StoredVariant.column(image.variants)), \(image.altText), \(Self.now))
                RETURNING id
                """, logger: logger
            ).collect()
            return (try rows[0].decode(Int64.self), expired)
        }
    }

    public func mediaUpload(id: Int64, userID: Int64) async throws -> NewPost? {
        try await read { [logger] connection in
            try await connection.query(
                """
                SELECT \(unescaped: Self.uploadColumns) FROM media_uploads WHERE id = \(id) AND user_id = \(userID)
                """, logger: logger
            ).collect().first.map(Self.upload)
        }
    }

    public func setUploadAltText(id: Int64, userID: Int64, altText: String?) async throws -> NewPost {
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

    public func createPost(fromUpload id: Int64, userID: Int64, caption: String) async throws -> Post {
        try await write { [logger] connection, changes in
            let rows = try await connection.query(
                """
                DELETE FROM media_uploads WHERE id = \(id) AND user_id = \(userID)
                RETURNING \(unescaped: Self.uploadColumns)
                """, logger: logger
            ).collect()
            guard let row = rows.first else { throw StoreError.notFound("media") }
            var post = try Self.upload(row)
            post.caption = caption
            return try await Self.insertPost(connection, post, changes: changes, logger: logger)
        }
    }
}

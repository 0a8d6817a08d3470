import Foundation
import GRDB
import MakestagramAPI
import MakestagramStore

extension SQLiteStore {
    static func post(_ db: Database, id: Int64, viewer: Int64, hiding hidden: Set<String>, signing: MediaSigning)
        throws -> Post?
    {
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT \(PostQuery.columns) FROM posts p JOIN users u ON u.id = p.author_id AND u.status = 'active'
                    WHERE p.id = :id AND \(Visibility.readable(viewer: ":viewer", author: "u"))
                    """),
            arguments: ["id": id, "viewer": viewer])
        return try PostQuery.complete(db, rows: rows, hiding: hidden, signing: signing).first
    }

    public func createPost(_ post: NewPost) async throws -> Post {
        try await write { db in try insertPost(db, post) }
    }

    /// Inserts a post inside the current transaction and publishes it; `original`, for a post from another server,
    /// is its page there (its origin is written after it, in the same transaction).
    func insertPost(_ db: Database, _ post: NewPost, original: String? = nil) throws -> Post {
        try db.execute(
            sql: """
                INSERT INTO posts (author_id, caption, width, height, full_file, full_width, full_height,
                  thumb_file, thumb_width, thumb_height, variants, alt_text, created_at, hide_like_count,
                  photo_count)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT hide_like_counts FROM users WHERE id = ?), ?)
                """,
            arguments: [
                post.authorID, post.caption, post.cover.width, post.cover.height, post.cover.full.fileName,
                post.cover.full.width,
                post.cover.full.height, post.cover.thumb.fileName, post.cover.thumb.width, post.cover.thumb.height,
                StoredVariant.column(post.cover.variants), post.cover.altText, Self.now, post.authorID,
                1 + post.morePhotos.count,
            ])
        let id = db.lastInsertedRowID
        for (index, photo) in post.morePhotos.enumerated() {
            try db.execute(
                sql: """
                    INSERT INTO post_photos (post_id, position, \(PostQuery.photoColumns))
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    id, index + 1, photo.width, photo.height, photo.full.fileName, photo.full.width,
                    photo.full.height, photo.thumb.fileName, photo.thumb.width, photo.thumb.height,
                    StoredVariant.column(photo.variants), photo.altText,
                ])
        }
        try Self.file(db, postID: id, caption: post.caption)
        guard
            var created = try Self.post(db, id: id, viewer: post.authorID, hiding: hiddenNames, signing: mediaSigning)
        else {
            throw StoreError.notFound("post")
        }
        created.original = original
        let audience = try Self.audience(db, postID: created.id)
        try publishOnCommit(db, .postCreated(post: created, audience: audience))
        return created
    }

    /// Everyone whose home timeline holds the post.
    static func audience(_ db: Database, postID: Int64) throws -> [Int64] {
        try Int64.fetchAll(db, sql: "SELECT user_id FROM feed WHERE post_id = ?", arguments: [postID])
    }

    public func post(id: Int64, viewer: Int64) async throws -> Post? {
        try await read { db in
            try Self.post(db, id: id, viewer: viewer, hiding: hiddenNames(db, for: viewer), signing: mediaSigning)
        }
    }

    public func posts(ids: [Int64], viewer: Int64) async throws -> [Post] {
        guard !ids.isEmpty else { return [] }
        // One statement for the whole list: a subscription of 500 posts costs one query, not 500.
        return try await read { db in
            try PostQuery.posts(
                db, ids: ids, viewer: viewer, hiding: hiddenNames(db, for: viewer), signing: mediaSigning)
        }
    }

    public func editCaption(postID: Int64, viewer: Int64, caption: String) async throws -> Post {
        try await write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT author_id, caption FROM posts WHERE id = ?", arguments: [postID])
            else { throw StoreError.notFound("post") }
            guard row["author_id"] == viewer else { throw try Self.notYours(db, post: postID, viewer: viewer) }
            let changed = (row["caption"] as String) != caption
            if changed {
                try db.execute(
                    sql: "UPDATE posts SET caption = ?, edited_at = ?, version = version + 1 WHERE id = ?",
                    arguments: [caption, Self.now, postID])
                try Self.file(db, postID: postID, caption: caption)
            }
            guard
                let post = try Self.post(
                    db, id: postID, viewer: viewer, hiding: hiddenNames(db, for: viewer), signing: mediaSigning)
            else {
                throw StoreError.notFound("post")
            }
            if changed, let editedAt = post.editedAt {
                try publishOnCommit(
                    db, .captionEdited(postID: postID, caption: caption, editedAt: editedAt, version: post.version))
            }
            return post
        }
    }

    public func setAltText(postID: Int64, viewer: Int64, photo: Int, altText: String?) async throws -> Post {
        try await write { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT p.author_id, p.photo_count,
                          CASE WHEN ?2 = 0 THEN p.alt_text ELSE pp.alt_text END AS alt_text
                        FROM posts p LEFT JOIN post_photos pp ON pp.post_id = p.id AND pp.position = ?2
                        WHERE p.id = ?1
                        """, arguments: [postID, photo])
            else { throw StoreError.notFound("post") }
            guard row["author_id"] == viewer else { throw try Self.notYours(db, post: postID, viewer: viewer) }
            guard photo >= 0, photo < row["photo_count"] as Int else { throw StoreError.notFound("photo") }
            let changed = (row["alt_text"] as String?) != altText
            if changed {
                if photo > 0 {
                    try db.execute(
                        sql: "UPDATE post_photos SET alt_text = ? WHERE post_id = ? AND position = ?",
                        arguments: [altText, postID, photo])
                }
                try db.execute(
                    sql: """
                        UPDATE posts SET alt_text = CASE WHEN ?3 = 0 THEN ?1 ELSE alt_text END, version = version + 1
                        WHERE id = ?2
                        """,
                    arguments: [altText, postID, photo])
            }
            guard
                let post = try Self.post(
                    db, id: postID, viewer: viewer, hiding: hiddenNames(db, for: viewer), signing: mediaSigning)
            else {
                throw StoreError.notFound("post")
            }
            if changed { try publishOnCommit(db, .imageChanged(postID: postID, version: post.version)) }
            return post
        }
    }

    public func postsWithoutVariants(after: Int64, limit: Int) async throws -> [(id: Int64, fullFile: String)] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT id, full_file FROM posts WHERE variants IS NULL AND id > ? ORDER BY id LIMIT ?",
                arguments: [after, limit]
            ).map { (id: $0["id"], fullFile: $0["full_file"]) }
        }
    }

    public func setVariants(postID: Int64, variants: [StoredVariant]) async throws -> Bool {
        guard let column = StoredVariant.column(variants) else { return false }
        return try await write { db in
            guard
                let version = try Int64.fetchOne(
                    db,
                    sql: """
                        UPDATE posts SET variants = ?, version = version + 1 WHERE id = ? AND variants IS NULL
                        RETURNING version
                        """,
                    arguments: [column, postID])
            else { return false }
            try publishOnCommit(db, .imageChanged(postID: postID, version: version))
            return true
        }
    }

    public func setLikeCountHidden(postID: Int64, viewer: Int64, hidden: Bool) async throws -> Post {
        try await write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT author_id, hide_like_count FROM posts WHERE id = ?", arguments: [postID])
            else { throw StoreError.notFound("post") }
            guard row["author_id"] == viewer else { throw try Self.notYours(db, post: postID, viewer: viewer) }
            let changed = (row["hide_like_count"] as Bool) != hidden
            if changed {
                try db.execute(
                    sql: "UPDATE posts SET hide_like_count = ?, version = version + 1 WHERE id = ?",
                    arguments: [hidden, postID])
            }
            guard
                let post = try Self.post(
                    db, id: postID, viewer: viewer, hiding: hiddenNames(db, for: viewer), signing: mediaSigning)
            else {
                throw StoreError.notFound("post")
            }
            if changed {
                try publishOnCommit(
                    db,
                    .likeCountHiddenChanged(
                        postID: postID, authorID: viewer, hidden: hidden, likeCount: post.likeCount ?? 0,
                        version: post.version))
            }
            return post
        }
    }

    public func deletePost(id: Int64, viewer: Int64) async throws -> [String] {
        try await write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT author_id, full_file, thumb_file, variants, version FROM posts WHERE id = ?",
                    arguments: [id])
            else { throw StoreError.notFound("post") }
            guard row["author_id"] == viewer else { throw try Self.notYours(db, post: id, viewer: viewer) }
            return try removePost(db, id: id, author: viewer, row: row)
        }
    }

    /// Deletes a post inside the current transaction and publishes it; `row` holds its `full_file`, `thumb_file`,
    /// `variants` and `version`. Answers the media files it referenced.
    func removePost(_ db: Database, id: Int64, author: Int64, row: Row) throws -> [String] {
        let version: Int64 = row["version"]
        let audience = try Self.audience(db, postID: id)
        try publishOnCommit(db, .postDeleted(postID: id, version: version + 1, audience: audience), author: author)
        let more = try Row.fetchAll(
            db, sql: "SELECT \(PostQuery.photoColumns) FROM post_photos WHERE post_id = ?", arguments: [id]
        ).flatMap { PostQuery.photo($0).fileNames }
        try db.execute(sql: "DELETE FROM posts WHERE id = ?", arguments: [id])
        return [row["full_file"], row["thumb_file"]] + StoredVariant.variants(column: row["variants"]).map(\.fileName)
            + more
    }

    /// Lists the page from the viewer's kept window when it holds the page (see ``TimelineCache``), reading only
    /// the posts `known` does not hold; otherwise reads the list, keeping the top of the timeline on a first page or
    /// pull to refresh.
    public func timeline(viewer: Int64, page: PageRequest, known: @escaping KnownPosts) async throws -> PageResult<
        ListedPost
    > {
        let cache = database.caches.timelines
        switch cache.read(viewer: viewer, page: page, known: known) {
        case .answered(let listed):
            return listed
        case .fromWindow(let listed):
            return try await read { db in
                try PostQuery.complete(
                    db, listed, viewer: viewer, known: known, hiding: hiddenNames(db, for: viewer),
                    signing: mediaSigning)
            }
        case .fromDatabase(let plan):
            return try await read { db in
                let listed = try cache.list(plan) { try Self.timelineList(db, viewer: viewer, page: $0) }
                return try PostQuery.complete(
                    db, listed, viewer: viewer, known: known, hiding: hiddenNames(db, for: viewer),
                    signing: mediaSigning)
            }
        }
    }

    static func timelineList(_ db: Database, viewer: Int64, page: PageRequest) throws -> PageResult<ListedPost> {
        try PostQuery.list(
            db, from: "feed f JOIN posts p ON p.id = f.post_id",
            filter: "f.user_id = :viewer AND p.author_id NOT IN (SELECT id FROM users WHERE status <> 'active')",
            key: "f.post_id",
            arguments: [:], viewer: viewer, page: page)
    }

    public func posts(username: String, viewer: Int64, page: PageRequest, known: @escaping KnownPosts) async throws
        -> PageResult<ListedPost>?
    {
        try await read { db in
            guard let author = try Self.userID(db, username: username) else { return nil }
            switch try Self.block(db, between: viewer, and: author) {
            case .blockedBy: return nil
            case .blocking: return PageResult(items: [], nextKey: nil)
            case nil: break
            }
            // A private account's posts are listed only to its owner and accepted followers (the list is answered
            // from rendered JSON without reading each post, so the rule is asked here, once).
            let readable =
                try Bool.fetchOne(
                    db,
                    sql: "SELECT \(Visibility.readable(viewer: "?1", author: "u")) FROM users u WHERE u.id = ?2",
                    arguments: [viewer, author]) ?? false
            guard readable else { return PageResult(items: [], nextKey: nil) }
            let listed = try PostQuery.list(
                db, from: "posts p", filter: "p.author_id = :author", key: "p.id", arguments: ["author": author],
                viewer: viewer, page: page)
            return try PostQuery.complete(
                db, listed, viewer: viewer, known: known, hiding: hiddenNames(db, for: viewer), signing: mediaSigning)
        }
    }
}

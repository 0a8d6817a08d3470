import Foundation
import MakestagramAPI
import MakestagramStore
import PostgresNIO

extension PostgresStore {
    static func post(
        _ connection: PostgresConnection, id: Int64, viewer: Int64, hiding hidden: Set<String>,
        signing: MediaSigning, logger: Logger
    ) async throws -> Post? {
        try await PostRows.posts(
            connection, ids: [id], viewer: viewer, hiding: hidden, signing: signing, logger: logger
        ).first
    }

    /// Everyone whose home timeline holds the post.
    static func audience(_ connection: PostgresConnection, postID: Int64, logger: Logger) async throws -> [Int64] {
        var audience: [Int64] = []
        for try await user in try await connection.query(
            "SELECT user_id FROM feed WHERE post_id = \(postID)", logger: logger
        ).decode(Int64.self) {
            audience.append(user)
        }
        return audience
    }

    public func createPost(_ post: NewPost) async throws -> Post {
        try await write { [logger] connection, changes in
            try await Self.insertPost(connection, post, signing: self.mediaSigning, changes: changes, logger: logger)
        }
    }

    /// Inserts a post inside the current transaction and publishes it; `original`, for a post from another server,
    /// is its page there (its origin is written after it, in the same transaction).
    static func insertPost(
        _ connection: PostgresConnection, _ post: NewPost, original: String? = nil, signing: MediaSigning,
        changes: Changes, logger: Logger
    )
        async throws -> Post
    {
        let rows = try await connection.query(
            """
            INSERT INTO posts (author_id, caption, width, height, full_file, full_width, full_height,
              thumb_file, thumb_width, thumb_height, variants, alt_text, created_at, hide_like_count, photo_count)
            VALUES (\(post.authorID), \(post.caption), \(post.cover.width), \(post.cover.height), \(post.cover.full.fileName),
              \(post.cover.full.width), \(post.cover.full.height), \(post.cover.thumb.fileName), \(post.cover.thumb.width),
              \(post.cover.thumb.height), \(StoredVariant.column(post.cover.variants)), \(post.cover.altText), \(Self.now),
              coalesce((SELECT hide_like_counts FROM users WHERE id = \(post.authorID)), false),
              \(1 + post.morePhotos.count))
            RETURNING id
            """, logger: logger
        ).collect()
        let id = try rows[0].decode(Int64.self)
        for (index, photo) in post.morePhotos.enumerated() {
            try await connection.query(
                """
                INSERT INTO post_photos (post_id, position, \(unescaped: PostRows.photoColumns))
                VALUES (\(id), \(index + 1), \(photo.width), \(photo.height), \(photo.full.fileName),
                  \(photo.full.width), \(photo.full.height), \(photo.thumb.fileName), \(photo.thumb.width),
                  \(photo.thumb.height), \(StoredVariant.column(photo.variants)), \(photo.altText))
                """, logger: logger)
        }
        try await file(connection, postID: id, caption: post.caption, logger: logger)
        // A new post has no likers to hide.
        guard
            var created = try await self.post(
                connection, id: id, viewer: post.authorID, hiding: [], signing: signing, logger: logger)
        else {
            throw StoreError.notFound("post")
        }
        created.original = original
        let audience = try await audience(connection, postID: id, logger: logger)
        changes.publish(.postCreated(post: created, audience: audience))
        return created
    }

    public func post(id: Int64, viewer: Int64) async throws -> Post? {
        try await read { [logger] connection in
            try await Self.post(
                connection, id: id, viewer: viewer,
                hiding: try await self.hiddenNames(connection, for: viewer), signing: self.mediaSigning, logger: logger)
        }
    }

    public func posts(ids: [Int64], viewer: Int64) async throws -> [Post] {
        guard !ids.isEmpty else { return [] }
        return try await read { [logger] connection in
            try await PostRows.posts(
                connection, ids: ids, viewer: viewer,
                hiding: try await self.hiddenNames(connection, for: viewer), signing: self.mediaSigning, logger: logger)
        }
    }

    public func editCaption(postID: Int64, viewer: Int64, caption: String) async throws -> Post {
        try await write { [logger] connection, changes in
            let rows = try await connection.query(
                "SELECT author_id, caption FROM posts WHERE id = \(postID) FOR NO KEY UPDATE", logger: logger
            ).collect()
            guard let row = rows.first else { throw StoreError.notFound("post") }
            let (author, old) = try row.decode((Int64, String).self)
            guard author == viewer else {
                throw try await Self.notYours(connection, post: postID, viewer: viewer, logger: logger)
            }
            if old != caption {
                try await connection.query(
                    """
                    UPDATE posts SET caption = \(caption), edited_at = \(Self.now), version = version + 1
                    WHERE id = \(postID)
                    """, logger: logger)
                try await Self.file(connection, postID: postID, caption: caption, logger: logger)
            }
            guard
                let post = try await Self.post(
                    connection, id: postID, viewer: viewer,
                    hiding: try await self.hiddenNames(connection, for: viewer), signing: self.mediaSigning,
                    logger: logger)
            else {
                throw StoreError.notFound("post")
            }
            if old != caption, let editedAt = post.editedAt {
                changes.publish(
                    .captionEdited(postID: postID, caption: caption, editedAt: editedAt, version: post.version))
            }
            return post
        }
    }

    public func setAltText(postID: Int64, viewer: Int64, photo: Int, altText: String?) async throws -> Post {
        try await write { [logger] connection, changes in
            let rows = try await connection.query(
                """
                SELECT p.author_id, p.photo_count, CASE WHEN \(photo) = 0 THEN p.alt_text ELSE pp.alt_text END
                FROM posts p LEFT JOIN post_photos pp ON pp.post_id = p.id AND pp.position = \(photo)
                WHERE p.id = \(postID) FOR NO KEY UPDATE OF p
                """, logger: logger
            ).collect()
            guard let row = rows.first else { throw StoreError.notFound("post") }
            let (author, count, old) = try row.decode((Int64, Int, String?).self)
            guard author == viewer else {
                throw try await Self.notYours(connection, post: postID, viewer: viewer, logger: logger)
            }
            guard photo >= 0, photo < count else { throw StoreError.notFound("photo") }
            let changed = old != altText
            if changed {
                if photo > 0 {
                    try await connection.query(
                        """
                        UPDATE post_photos SET alt_text = \(altText) WHERE post_id = \(postID) AND position = \(photo)
                        """, logger: logger)
                }
                try await connection.query(
                    """
                    UPDATE posts SET alt_text = CASE WHEN \(photo) = 0 THEN \(altText) ELSE alt_text END,
                      version = version + 1
                    WHERE id = \(postID)
                    """, logger: logger)
            }
            guard
                let post = try await Self.post(
                    connection, id: postID, viewer: viewer,
                    hiding: try await self.hiddenNames(connection, for: viewer), signing: self.mediaSigning,
                    logger: logger)
            else {
                throw StoreError.notFound("post")
            }
            if changed { changes.publish(.imageChanged(postID: postID, version: post.version)) }
            return post
        }
    }

    /// Sets one column of a post `viewer` wrote, in one transaction: reads `column` locked and, when it is not
    /// `value` already, runs `update` (which grows the version) and publishes `event` for the post as it then is.
    /// Answers the post as `viewer` sees it. Throws `notFound` or `forbidden`.
    private func editOwnPost<Value: PostgresDecodable & Equatable & Sendable>(
        postID: Int64, viewer: Int64, column: String, to value: Value, update: PostgresQuery,
        event: @escaping @Sendable (Post) -> StoreEvent
    ) async throws -> Post {
        try await write { [logger] connection, changes in
            let rows = try await connection.query(
                "SELECT author_id, \(unescaped: column) FROM posts WHERE id = \(postID) FOR NO KEY UPDATE",
                logger: logger
            ).collect()
            guard let row = rows.first else { throw StoreError.notFound("post") }
            let (author, old) = try row.decode((Int64, Value).self)
            guard author == viewer else {
                throw try await Self.notYours(connection, post: postID, viewer: viewer, logger: logger)
            }
            if old != value { try await connection.query(update, logger: logger) }
            guard
                let post = try await Self.post(
                    connection, id: postID, viewer: viewer,
                    hiding: try await self.hiddenNames(connection, for: viewer), signing: self.mediaSigning,
                    logger: logger)
            else {
                throw StoreError.notFound("post")
            }
            if old != value { changes.publish(event(post)) }
            return post
        }
    }

    public func postsWithoutVariants(after: Int64, limit: Int) async throws -> [(id: Int64, fullFile: String)] {
        try await read { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT id, full_file FROM posts WHERE variants IS NULL AND id > \(after) ORDER BY id LIMIT \(limit)
                """, logger: logger)
            var posts: [(id: Int64, fullFile: String)] = []
            for try await (id, file) in rows.decode((Int64, String).self) { posts.append((id, file)) }
            return posts
        }
    }

    public func setVariants(postID: Int64, variants: [StoredVariant]) async throws -> Bool {
        guard let column = StoredVariant.column(variants) else { return false }
        return try await write { [logger] connection, changes in
            let rows = try await connection.query(
                """
                UPDATE posts SET variants = \(column), version = version + 1 WHERE id = \(postID) AND variants IS NULL
                RETURNING author_id, version
                """, logger: logger
            ).collect()
            guard let row = rows.first else { return false }
            let (author, version) = try row.decode((Int64, Int64).self)
            changes.publish(.imageChanged(postID: postID, version: version), author: author)
            return true
        }
    }

    public func setLikeCountHidden(postID: Int64, viewer: Int64, hidden: Bool) async throws -> Post {
        try await editOwnPost(
            postID: postID, viewer: viewer, column: "hide_like_count", to: hidden,
            update: "UPDATE posts SET hide_like_count = \(hidden), version = version + 1 WHERE id = \(postID)",
            event: {
                .likeCountHiddenChanged(
                    postID: postID, authorID: viewer, hidden: hidden, likeCount: $0.likeCount ?? 0, version: $0.version)
            })
    }

    public func deletePost(id: Int64, viewer: Int64) async throws -> [String] {
        try await write { [logger] connection, changes in
            let rows = try await connection.query(
                "SELECT author_id, full_file, thumb_file, variants, version FROM posts WHERE id = \(id) FOR UPDATE",
                logger: logger
            ).collect()
            guard let row = rows.first else { throw StoreError.notFound("post") }
            let (author, full, thumb, variants, version) = try row.decode((Int64, String, String, String?, Int64).self)
            guard author == viewer else {
                throw try await Self.notYours(connection, post: id, viewer: viewer, logger: logger)
            }
            return try await Self.removePost(
                connection, id: id, author: author, version: version, files: [full, thumb], variants: variants,
                changes: changes, logger: logger)
        }
    }

    /// Deletes a post (locked by the caller) inside the current transaction and publishes it; answers the media
    /// files it referenced.
    static func removePost(
        _ connection: PostgresConnection, id: Int64, author: Int64, version: Int64, files: [String],
        variants: String?, changes: Changes, logger: Logger
    ) async throws -> [String] {
        let audience = try await audience(connection, postID: id, logger: logger)
        let more = try await PostRows.morePhotos(connection, of: [id], logger: logger)[id] ?? []
        try await connection.query("DELETE FROM posts WHERE id = \(id)", logger: logger)
        changes.publish(.postDeleted(postID: id, version: version + 1, audience: audience), author: author)
        return files + StoredVariant.variants(column: variants).map(\.fileName) + more.flatMap(\.fileNames)
    }

    /// Lists the page from the viewer's kept window when it holds the page (see ``TimelineCache``), reading only
    /// the posts `known` does not hold; otherwise reads the list, keeping the top of the timeline on a first page or
    /// pull to refresh. While the change stream is not current (``StoreCaches/isTrusted``) every page is read from
    /// the database and nothing is kept.
    public func timeline(viewer: Int64, page: PageRequest, known: @escaping KnownPosts) async throws -> PageResult<
        ListedPost
    > {
        let cache = caches.timelines
        switch cache.read(viewer: viewer, page: page, known: known, trusted: caches.isTrusted) {
        case .answered(let listed):
            return listed
        case .fromWindow(let listed):
            return try await read { [logger] connection in
                try await PostRows.complete(
                    connection, listed, viewer: viewer, known: known,
                    hiding: { try await self.hiddenNames(connection, for: viewer) }, signing: self.mediaSigning,
                    logger: logger)
            }
        case .fromDatabase(let plan):
            return try await read { [logger] connection in
                let listed = try await cache.list(plan) {
                    try await Self.timelineList(connection, viewer: viewer, page: $0, logger: logger)
                }
                return try await PostRows.complete(
                    connection, listed, viewer: viewer, known: known,
                    hiding: { try await self.hiddenNames(connection, for: viewer) }, signing: self.mediaSigning,
                    logger: logger)
            }
        }
    }

    static func timelineList(_ connection: PostgresConnection, viewer: Int64, page: PageRequest, logger: Logger)
        async throws -> PageResult<ListedPost>
    {
        try await PostRows.list(
            connection, from: "feed f JOIN posts p ON p.id = f.post_id",
            filter: {
                "f.user_id = \($0.bind(viewer))"
                    + " AND p.author_id NOT IN (SELECT id FROM users WHERE status <> 'active')"
            },
            key: "f.post_id", viewer: viewer, page: page, logger: logger)
    }

    public func posts(username: String, viewer: Int64, page: PageRequest, known: @escaping KnownPosts) async throws
        -> PageResult<ListedPost>?
    {
        try await read { [logger] connection in
            guard let author = try await Self.userID(connection, username: username, logger: logger) else {
                return nil
            }
            switch try await Self.block(connection, between: viewer, and: author, logger: logger) {
            case .blockedBy: return nil
            case .blocking: return PageResult(items: [], nextKey: nil)
            case nil: break
            }
            // A private account's posts are listed only to its owner and accepted followers (the list is answered
            // from rendered JSON without reading each post, so the rule is asked here, once).
            let readable = try await connection.query(
                """
                SELECT \(unescaped: Visibility.readable(viewer: String(viewer), author: "u")) FROM users u
                WHERE u.id = \(author)
                """, logger: logger
            ).collect()
            guard try readable.first?.decode(Bool.self) == true else { return PageResult(items: [], nextKey: nil) }
            let listed = try await PostRows.list(
                connection, from: "posts p", filter: { "p.author_id = \($0.bind(author))" }, key: "p.id",
                viewer: viewer, page: page, logger: logger)
            return try await PostRows.complete(
                connection, listed, viewer: viewer, known: known,
                hiding: { try await self.hiddenNames(connection, for: viewer) }, signing: self.mediaSigning,
                logger: logger)
        }
    }
}

import Foundation
import Logging
import MakestagramAPI
import MakestagramStore
import PostgresNIO

/// The queries that read posts with everything a screen needs, as the SQLite store's `PostQuery` does: one statement
/// for the posts (author, variants, counts, whether the viewer liked each, the latest likers' names) and one for the
/// newest comments of all of them.
enum PostRows {
    /// Columns of a post row, for `posts p JOIN users u`, with whether `viewer` liked it.
    static func columns(_ sql: inout SQL, viewer: Int64) {
        sql.append(
            """
            SELECT p.id, p.created_at, p.caption, p.width, p.height, p.full_file, p.full_width, p.full_height,
              p.thumb_file, p.thumb_width, p.thumb_height, p.like_count, p.comment_count, p.version,
              u.id, u.username, u.display_name, u.avatar_file,
              EXISTS (SELECT 1 FROM likes vl WHERE vl.post_id = p.id AND vl.user_id = \(sql.bind(viewer))),
              p.likers_preview, p.edited_at, p.hide_like_count, p.variants, p.alt_text, p.photo_count, u.is_private
            """)
    }

    /// Decodes a row selected with ``columns(_:viewer:)``, leaving the `hidden` users (``HiddenUsers``) out of its
    /// likers; answers with it whether the post is an album (more than one photo) and its author's account private.
    static func post(_ row: PostgresRow, hiding hidden: Set<String>) throws -> (
        post: Post, isAlbum: Bool, isPrivate: Bool
    ) {
        let columns = try row.decode(
            (
                Int64, Double, String, Int, Int, String, Int, Int, String, Int, Int, Int, Int, Int64, Int64, String,
                String, String?, Bool, String, Double?, Bool, String?, String?, Int, Bool
            ).self)
        let post = Post(
            id: columns.0,
            createdAt: Date(timeIntervalSince1970: columns.1),
            caption: columns.2,
            author: UserSummary(
                id: columns.14, username: columns.15, displayName: columns.16,
                avatarURL: columns.17.map(MediaPath.url(for:))),
            image: PostImage(
                width: columns.3, height: columns.4,
                full: StoredVariant(fileName: columns.5, width: columns.6, height: columns.7).image,
                thumb: StoredVariant(fileName: columns.8, width: columns.9, height: columns.10).image,
                variants: StoredVariant.variants(column: columns.22).map(\.image), altText: columns.23),
            likeCount: columns.11,
            commentCount: columns.12,
            viewerHasLiked: columns.18,
            likers: MakestagramStore.likerNames(columns.19, hiding: hidden),
            version: columns.13,
            editedAt: columns.20.map(Date.init(timeIntervalSince1970:)), likeCountHidden: columns.21)
        return (post, columns.24 > 1, columns.25)
    }

    /// Columns of an album's photo after the first (`post_photos`).
    static let photoColumns = """
        width, height, full_file, full_width, full_height, thumb_file, thumb_width, thumb_height, variants, alt_text
        """

    /// The decoded types of ``photoColumns``.
    typealias PhotoColumns = (Int, Int, String, Int, Int, String, Int, Int, String?, String?)

    static func photo(_ columns: PhotoColumns) -> StoredPhoto {
        StoredPhoto(
            width: columns.0, height: columns.1,
            full: StoredVariant(fileName: columns.2, width: columns.3, height: columns.4),
            thumb: StoredVariant(fileName: columns.5, width: columns.6, height: columns.7),
            variants: StoredVariant.variants(column: columns.8), altText: columns.9)
    }

    /// The photos after the first of the posts `ids`, in order, with one statement.
    static func morePhotos(_ connection: PostgresConnection, of ids: [Int64], logger: Logger) async throws
        -> [Int64: [StoredPhoto]]
    {
        guard !ids.isEmpty else { return [:] }
        var byPost: [Int64: [StoredPhoto]] = [:]
        for try await (post, a, b, c, d, e, f, g, h, i, j) in try await connection.query(
            """
            SELECT post_id, \(unescaped: photoColumns) FROM post_photos WHERE post_id = ANY(\(ids))
            ORDER BY post_id, position
            """, logger: logger
        ).decode((Int64, Int, Int, String, Int, Int, String, Int, Int, String?, String?).self) {
            byPost[post, default: []].append(photo((a, b, c, d, e, f, g, h, i, j)))
        }
        return byPost
    }

    /// Decodes `id, username, display_name, avatar_file` into a summary.
    static func summary(_ row: PostgresRow) throws -> UserSummary {
        let (id, username, displayName, avatar) = try row.decode((Int64, String, String, String?).self)
        return UserSummary(
            id: id, username: username, displayName: displayName, avatarURL: avatar.map(MediaPath.url(for:)))
    }

    /// Columns of a comment row, for `comments c JOIN users u`.
    static let commentColumns = "c.id, c.post_id, c.text, c.created_at, u.id, u.username, u.display_name, u.avatar_file"

    static func comment(_ row: PostgresRow) throws -> Comment {
        let (id, postID, text, createdAt, authorID, username, displayName, avatar) = try row.decode(
            (Int64, Int64, String, Double, Int64, String, String, String?).self)
        return Comment(
            id: id, postId: postID,
            author: UserSummary(
                id: authorID, username: username, displayName: displayName,
                avatarURL: avatar.map(MediaPath.url(for:))),
            text: text, createdAt: Date(timeIntervalSince1970: createdAt))
    }

    /// Fills in each post's newest comments with one statement for the whole list.
    static func withRecentComments(
        _ connection: PostgresConnection, _ posts: [Post], hiding hidden: Set<String>, logger: Logger
    ) async throws -> [Post] {
        let ids = posts.filter { $0.commentCount > 0 }.map(\.id)
        guard !ids.isEmpty else { return posts }
        let rows = try await connection.query(
            """
            SELECT \(unescaped: commentColumns) FROM unnest(\(ids)::bigint[]) AS j(post_id)
            CROSS JOIN LATERAL (
              SELECT * FROM comments WHERE post_id = j.post_id ORDER BY id DESC LIMIT \(Post.recentCommentsLimit)) c
            JOIN users u ON u.id = c.author_id AND u.status = 'active'
            ORDER BY c.id
            """, logger: logger)
        var byPost: [Int64: [Comment]] = [:]
        for try await row in rows {
            let comment = try comment(row)
            if hidden.contains(comment.author.username) { continue }
            byPost[comment.postId, default: []].append(comment)
        }
        return posts.map { post in
            var post = post
            post.recentComments = byPost[post.id] ?? []
            return post
        }
    }

    /// Fills in, for the posts from other servers, the address of each one's page there (``Post/original``), with one
    /// statement for the list; posts of people here (whose names have no `@`) ask nothing.
    static func withOriginals(_ connection: PostgresConnection, _ posts: [Post], logger: Logger) async throws -> [Post]
    {
        let ids = posts.filter { $0.author.username.utf8.contains(UInt8(ascii: "@")) }.map(\.id)
        guard !ids.isEmpty else { return posts }
        let rows = try await connection.query(
            "SELECT post_id, coalesce(url, uri) FROM remote_posts WHERE post_id = ANY(\(ids)::bigint[])",
            logger: logger)
        var originals: [Int64: String] = [:]
        for try await (id, original) in rows.decode((Int64, String).self) { originals[id] = original }
        return posts.map { post in
            guard let original = originals[post.id] else { return post }
            var post = post
            post.original = original
            return post
        }
    }

    /// The posts among `ids` that exist, in no particular order.
    static func posts(
        _ connection: PostgresConnection, ids: [Int64], viewer: Int64, hiding hidden: Set<String>,
        signing: MediaSigning, logger: Logger
    ) async throws -> [Post] {
        guard !ids.isEmpty else { return [] }
        var sql = SQL()
        columns(&sql, viewer: viewer)
        sql.append(
            " FROM posts p JOIN users u ON u.id = p.author_id AND u.status = 'active' WHERE p.id = ANY(\(sql.bind(ids)))"
        )
        sql.append(" AND " + Visibility.readable(viewer: String(viewer), author: "u"))
        var posts: [Post] = []
        var albums: [Int64] = []
        var guarded = Set<Int64>()
        for try await row in try await connection.query(sql.query, logger: logger) {
            let (post, isAlbum, isPrivate) = try post(row, hiding: hidden)
            if isAlbum { albums.append(post.id) }
            // A private account's photos are served only at signed URLs (MediaSigning).
            if isPrivate { guarded.insert(post.id) }
            posts.append(post)
        }
        if !albums.isEmpty {
            let more = try await morePhotos(connection, of: albums, logger: logger)
            for index in posts.indices {
                if let photos = more[posts[index].id] { posts[index].photos += photos.map(\.image) }
            }
        }
        let complete = try await withOriginals(
            connection, withRecentComments(connection, posts, hiding: hidden, logger: logger), logger: logger)
        return guarded.isEmpty ? complete : complete.map { guarded.contains($0.id) ? signing.signed($0) : $0 }
    }

    /// One page of a newest-first post list: each post's ID, version and whether the viewer liked it.
    ///
    /// - Parameters:
    ///   - from: the FROM/JOIN clause; it must name the posts `p`.
    ///   - filter: a condition on the rows.
    ///   - key: the column that orders the list (descending) and is used as the page key.
    static func list(
        _ connection: PostgresConnection, from: String, filter: (inout SQL) -> String, key: String, viewer: Int64,
        page: PageRequest, logger: Logger
    ) async throws -> PageResult<ListedPost> {
        var sql = SQL()
        sql.append("SELECT p.id, p.version, vl.post_id IS NOT NULL FROM \(from) ")
        sql.append("LEFT JOIN likes vl ON vl.post_id = p.id AND vl.user_id = \(sql.bind(viewer)) WHERE ")
        sql.append(filter(&sql))
        switch page.position {
        case .start:
            sql.append(" ORDER BY \(key) DESC")
        case .after(let after):
            sql.append(" AND \(key) < \(sql.bind(after)) ORDER BY \(key) DESC")
        case .newerThan(let newer):
            sql.append(" AND \(key) > \(sql.bind(newer)) ORDER BY \(key) ASC")
        }
        sql.append(" LIMIT \(sql.bind(page.limit + 1))")
        var items: [ListedPost] = []
        items.reserveCapacity(page.limit + 1)
        for try await (id, version, liked) in try await connection.query(sql.query, logger: logger).decode(
            (Int64, Int64, Bool).self)
        {
            items.append(.known(id: id, version: version, viewerHasLiked: liked))
        }
        return .newestFirst(items, request: page)
    }

    /// Reads in full the listed posts that `known` does not hold at their listed version; a post deleted since it
    /// was listed leaves the page.
    static func complete(
        _ connection: PostgresConnection, _ page: PageResult<ListedPost>, viewer: Int64, known: KnownPosts,
        hiding hidden: () async throws -> Set<String>, signing: MediaSigning, logger: Logger
    ) async throws -> PageResult<ListedPost> {
        let missing = page.missing(known)
        guard !missing.isEmpty else { return page }
        return page.completed(
            missing: missing,
            full: try await posts(
                connection, ids: missing, viewer: viewer, hiding: try await hidden(), signing: signing, logger: logger))
    }

    /// Reads a simple keyset page. `sql` selects the item's columns and then, last, the page key `key`; it ends in
    /// a WHERE clause that the page's condition extends.
    static func page<Item>(
        _ connection: PostgresConnection, _ sql: SQL, key: String, descending: Bool, page: PageRequest,
        logger: Logger, decode: (PostgresRow) throws -> Item
    ) async throws -> PageResult<Item> {
        var sql = sql
        if case .after(let after) = page.position {
            sql.append(" AND \(key) \(descending ? "<" : ">") \(sql.bind(after))")
        }
        sql.append(" ORDER BY \(key) \(descending ? "DESC" : "ASC") LIMIT \(sql.bind(page.limit + 1))")
        var items: [(Int64, Item)] = []
        for try await row in try await connection.query(sql.query, logger: logger) {
            let cells = row.makeRandomAccess()
            items.append((try cells[cells.count - 1].decode(Int64.self), try decode(row)))
        }
        let hasMore = items.count > page.limit
        if hasMore { items.removeLast() }
        return PageResult(items: items.map(\.1), nextKey: hasMore ? items.last?.0 : nil)
    }
}

/// SQL text with its bound values, built piece by piece: `bind` appends a value and answers its placeholder.
struct SQL {
    private(set) var text = ""
    private var binds = PostgresBindings()

    init(_ text: String = "") {
        self.text = text
    }

    mutating func append(_ more: String) {
        text += more
    }

    /// Binds `value` and answers its placeholder (`$1`, `$2`, …).
    mutating func bind<Value: PostgresThrowingDynamicTypeEncodable>(_ value: Value) -> String {
        // The values bound here (integers, strings, arrays of them) never fail to encode.
        try! binds.append(value)
        return "$\(binds.count)"
    }

    var query: PostgresQuery { PostgresQuery(unsafeSQL: text, binds: binds) }
}

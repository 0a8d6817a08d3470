import Foundation
import GRDB
import MakestagramAPI
import MakestagramStore

/// The query shape that reads posts with everything a screen needs: one statement for the posts (author,
/// variants, counts, whether the viewer liked each post, the latest likers' names) and one for the newest comments
/// of all of them, however many posts a page holds.
enum PostQuery {
    /// Columns of a post row; binds `:viewer`.
    static let columns = """
        p.id, p.created_at, p.caption, p.width, p.height, p.full_file, p.full_width, p.full_height,
        p.thumb_file, p.thumb_width, p.thumb_height, p.like_count, p.comment_count, p.version,
        u.id AS author_id, u.username, u.display_name, u.avatar_file,
        EXISTS (SELECT 1 FROM likes vl WHERE vl.post_id = p.id AND vl.user_id = :viewer) AS viewer_liked,
        p.likers_preview, p.edited_at, p.hide_like_count, p.variants, p.alt_text, p.photo_count, u.is_private
        """

    /// Decodes a row selected with ``columns`` (by position: this runs for every post of every page), leaving the
    /// `hidden` users (``HiddenUsers``) out of its likers.
    static func post(_ row: Row, hiding hidden: Set<String>) -> Post {
        let avatar: String? = row[17]
        let likers: String = row[19]
        let editedAt: Double? = row[20]
        let variants: String? = row[22]
        let altText: String? = row[23]
        return Post(
            id: row[0],
            createdAt: Date(timeIntervalSince1970: row[1]),
            caption: row[2],
            author: UserSummary(
                id: row[14], username: row[15], displayName: row[16], avatarURL: avatar.map(MediaPath.url(for:))),
            image: PostImage(
                width: row[3], height: row[4],
                full: StoredVariant(fileName: row[5], width: row[6], height: row[7]).image,
                thumb: StoredVariant(fileName: row[8], width: row[9], height: row[10]).image,
                variants: StoredVariant.variants(column: variants).map(\.image), altText: altText),
            likeCount: row[11],
            commentCount: row[12],
            viewerHasLiked: row[18],
            likers: MakestagramStore.likerNames(likers, hiding: hidden),
            version: row[13],
            editedAt: editedAt.map(Date.init(timeIntervalSince1970:)), likeCountHidden: row[21])
    }

    /// Whether a row selected with ``columns`` is an album (more than one photo).
    static func isAlbum(_ row: Row) -> Bool {
        (row[24] as Int) > 1
    }

    /// Columns of an album's photo after the first (`post_photos`).
    static let photoColumns = """
        width, height, full_file, full_width, full_height, thumb_file, thumb_width, thumb_height, variants, alt_text
        """

    /// Decodes a row whose columns from `start` on are ``photoColumns``.
    static func photo(_ row: Row, from start: Int = 0) -> StoredPhoto {
        StoredPhoto(
            width: row[start], height: row[start + 1],
            full: StoredVariant(fileName: row[start + 2], width: row[start + 3], height: row[start + 4]),
            thumb: StoredVariant(fileName: row[start + 5], width: row[start + 6], height: row[start + 7]),
            variants: StoredVariant.variants(column: row[start + 8]), altText: row[start + 9])
    }

    /// Fills in the photos after the first of the `albums` among `posts`, in order, with one statement for the list.
    static func withAlbumPhotos(_ db: Database, _ posts: [Post], albums: Set<Int64>) throws -> [Post] {
        guard !albums.isEmpty else { return posts }
        let ids = "[" + albums.map(String.init).joined(separator: ",") + "]"
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT post_id, \(photoColumns) FROM post_photos
                    WHERE post_id IN (SELECT value FROM json_each(:ids)) ORDER BY post_id, position
                    """),
            arguments: ["ids": ids])
        var byPost: [Int64: [PostImage]] = [:]
        while let row = try rows.next() {
            let postID: Int64 = row[0]
            byPost[postID, default: []].append(photo(row, from: 1).image)
        }
        return posts.map { post in
            guard let more = byPost[post.id] else { return post }
            var post = post
            post.photos = [post.image] + more
            return post
        }
    }

    /// Reads the posts `rows` select (``columns``), with every photo and the newest comments.
    static func complete(_ db: Database, rows: RowCursor, hiding hidden: Set<String>, signing: MediaSigning) throws
        -> [Post]
    {
        var posts: [Post] = []
        var albums = Set<Int64>()
        var guarded = Set<Int64>()
        while let row = try rows.next() {
            let post = post(row, hiding: hidden)
            if isAlbum(row) { albums.insert(post.id) }
            // A private account's photos are served only at signed URLs (MediaSigning).
            if row[25] as Bool { guarded.insert(post.id) }
            posts.append(post)
        }
        let complete = try withOriginals(
            db, withRecentComments(db, withAlbumPhotos(db, posts, albums: albums), hiding: hidden))
        return guarded.isEmpty ? complete : complete.map { guarded.contains($0.id) ? signing.signed($0) : $0 }
    }

    /// Fills in, for the posts from other servers, the address of each one's page there (``Post/original``), with one
    /// statement for the list; posts of people here (whose names have no `@`) ask nothing.
    static func withOriginals(_ db: Database, _ posts: [Post]) throws -> [Post] {
        let remote = posts.filter { $0.author.username.utf8.contains(UInt8(ascii: "@")) }
        guard !remote.isEmpty else { return posts }
        let ids = "[" + remote.map { String($0.id) }.joined(separator: ",") + "]"
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT post_id, coalesce(url, uri) FROM remote_posts
                    WHERE post_id IN (SELECT value FROM json_each(:ids))
                    """),
            arguments: ["ids": ids])
        var originals: [Int64: String] = [:]
        while let row = try rows.next() { originals[row[0]] = row[1] }
        return posts.map { post in
            guard let original = originals[post.id] else { return post }
            var post = post
            post.original = original
            return post
        }
    }

    /// Fills in each post's newest comments with one statement for the whole list: per post, an index range scan
    /// of `comments_post` that stops after ``Post/recentCommentsLimit`` rows. Comments by the `hidden` (the reader's
    /// block partners) are left out.
    static func withRecentComments(_ db: Database, _ posts: [Post], hiding hidden: Set<String>) throws -> [Post] {
        let withComments = posts.filter { $0.commentCount > 0 }
        guard !withComments.isEmpty else { return posts }
        let ids = "[" + withComments.map { String($0.id) }.joined(separator: ",") + "]"
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT \(SQLiteStore.commentColumns) FROM json_each(:ids) j
                    JOIN comments c ON c.id IN (
                      SELECT id FROM comments WHERE post_id = j.value ORDER BY id DESC LIMIT :limit)
                    JOIN users u ON u.id = c.author_id AND u.status = 'active'
                    ORDER BY c.id
                    """),
            arguments: ["ids": ids, "limit": Post.recentCommentsLimit])
        var byPost: [Int64: [Comment]] = [:]
        for row in rows {
            let comment = SQLiteStore.comment(row)
            if hidden.contains(comment.author.username) { continue }
            byPost[comment.postId, default: []].append(comment)
        }
        return posts.map { post in
            var post = post
            post.recentComments = byPost[post.id] ?? []
            return post
        }
    }

    /// Decodes `author_id, username, display_name, avatar_file` into a summary.
    static func author(_ row: Row) -> UserSummary {
        let avatar: String? = row["avatar_file"]
        return UserSummary(
            id: row["author_id"], username: row["username"], displayName: row["display_name"],
            avatarURL: avatar.map(MediaPath.url(for:)))
    }

    /// The posts among `ids` that exist, in no particular order: one statement however many there are.
    static func posts(
        _ db: Database, ids: [Int64], viewer: Int64, hiding hidden: Set<String>, signing: MediaSigning
    ) throws -> [Post] {
        guard !ids.isEmpty else { return [] }
        let list = "[" + ids.map(String.init).joined(separator: ",") + "]"
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT \(columns) FROM posts p JOIN users u ON u.id = p.author_id AND u.status = 'active'
                    WHERE p.id IN (SELECT value FROM json_each(:ids))
                      AND \(Visibility.readable(viewer: ":viewer", author: "u"))
                    """),
            arguments: ["ids": list, "viewer": viewer])
        return try complete(db, rows: rows, hiding: hidden, signing: signing)
    }

    /// Lists one page of a newest-first post list: each post's ID, version and whether the viewer liked it. The
    /// viewer's likes come from a LEFT JOIN on the (post, user) index, which SQLite runs in two thirds of the time of
    /// a correlated EXISTS per post (measured on the benchmark data). ``complete(_:_:viewer:known:)`` then reads
    /// the posts the caller does not hold.
    ///
    /// - Parameters:
    ///   - from: the FROM/JOIN clause; it must name the posts `p`.
    ///   - filter: a condition on the rows (may bind named arguments given in `arguments`).
    ///   - key: the column that orders the list (descending) and is used as the page key.
    static func list(
        _ db: Database, from: String, filter: String, key: String, arguments: StatementArguments,
        viewer: Int64, page: PageRequest
    ) throws -> PageResult<ListedPost> {
        var arguments = arguments
        _ = arguments.append(contentsOf: ["viewer": viewer, "limit": page.limit + 1])
        let keyCondition: String
        let order: String
        switch page.position {
        case .start:
            keyCondition = "1"
            order = "DESC"
        case .after(let after):
            keyCondition = "\(key) < :key"
            order = "DESC"
            _ = arguments.append(contentsOf: ["key": after])
        case .newerThan(let newer):
            keyCondition = "\(key) > :key"
            order = "ASC"
            _ = arguments.append(contentsOf: ["key": newer])
        }
        let sql = """
            SELECT p.id, p.version, vl.post_id IS NOT NULL
            FROM \(from) LEFT JOIN likes vl ON vl.post_id = p.id AND vl.user_id = :viewer
            WHERE \(filter) AND \(keyCondition) ORDER BY \(key) \(order) LIMIT :limit
            """
        var items: [ListedPost] = []
        items.reserveCapacity(page.limit + 1)
        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        while let row = try rows.next() {
            items.append(.known(id: row[0], version: row[1], viewerHasLiked: row[2]))
        }
        return .newestFirst(items, request: page)
    }

    /// Reads in full the listed posts that `known` does not hold at their listed version, without the `hidden` users
    /// among their likers and comments (asked only when a post is to be read). A post deleted since it was listed
    /// (when the list came from memory) leaves the page.
    static func complete(
        _ db: Database, _ page: PageResult<ListedPost>, viewer: Int64, known: KnownPosts,
        hiding hidden: @autoclosure () throws -> Set<String>, signing: MediaSigning
    ) throws -> PageResult<ListedPost> {
        let missing = page.missing(known)
        guard !missing.isEmpty else { return page }
        return page.completed(
            missing: missing, full: try posts(db, ids: missing, viewer: viewer, hiding: hidden(), signing: signing))
    }
}

extension StatementArguments {
    /// Keyset condition and bound value for simple lists ordered by `key`.
    static func keyset(_ page: PageRequest, key: String, descending: Bool) -> (String, StatementArguments) {
        switch page.position {
        case .start, .newerThan:
            return ("1", [:])
        case .after(let after):
            return ("\(key) \(descending ? "<" : ">") :key", ["key": after])
        }
    }
}

/// Reads a simple keyset page: rows carry their key in a column named `page_key`.
func fetchPage<Item>(
    _ db: Database, sql: (String) -> String, arguments: StatementArguments, key: String, descending: Bool,
    page: PageRequest, decode: (Row) -> Item
) throws -> PageResult<Item> {
    let (condition, keyArguments) = StatementArguments.keyset(page, key: key, descending: descending)
    var arguments = arguments
    _ = arguments.append(contentsOf: keyArguments)
    _ = arguments.append(contentsOf: ["limit": page.limit + 1])
    var rows = try Row.fetchAll(db.cachedStatement(sql: sql(condition)), arguments: arguments)
    let hasMore = rows.count > page.limit
    if hasMore { rows.removeLast() }
    let nextKey: Int64? = hasMore ? rows.last?["page_key"] : nil
    return PageResult(items: rows.map(decode), nextKey: nextKey)
}

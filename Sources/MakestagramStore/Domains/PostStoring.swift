import Foundation
import MakestagramAPI

/// Posts: creating, reading, editing and deleting them, and the lists they are read in (timelines, profiles, tags), with the photos uploaded ahead of a post. Part of ``Store``; both stores implement it.
public protocol PostStoring: Sendable {
    /// Stores a post whose variant files are already on disk.
    func createPost(_ post: NewPost) async throws -> Post
    /// One post as `viewer` sees it, or nil.
    func post(id: Int64, viewer: Int64) async throws -> Post?
    /// The posts among `ids` that exist, as `viewer` sees them, in no particular order.
    func posts(ids: [Int64], viewer: Int64) async throws -> [Post]
    /// Replaces the caption of a post `viewer` wrote and answers the post as they see it; the post's version grows
    /// and `editedAt` is set. An unchanged caption changes nothing. Throws `notFound` (no such post) or `forbidden`
    /// (someone else's).
    func editCaption(postID: Int64, viewer: Int64, caption: String) async throws -> Post
    /// Hides the like count of a post `viewer` wrote from everyone else (they keep seeing who liked it), or shows it
    /// again; the post's version grows and ``StoreEvent/likeCountHiddenChanged(postID:authorID:hidden:likeCount:version:)``
    /// is published. Unchanged changes nothing. Throws `notFound` or `forbidden` (someone else's post).
    func setLikeCountHidden(postID: Int64, viewer: Int64, hidden: Bool) async throws -> Post
    /// Sets or clears (nil) the alt text of the photo at index `photo` (0 is the first) of a post `viewer` wrote,
    /// already checked, and answers the post as they see it; a change grows the post's version and is published as
    /// ``StoreEvent/imageChanged(postID:version:)``. Unchanged changes nothing. Throws `notFound("post")`,
    /// `notFound("photo")` (no such photo in the post) or `forbidden`.
    func setAltText(postID: Int64, viewer: Int64, photo: Int, altText: String?) async throws -> Post
    /// Deletes a post with its likes, comments and reports, if `viewer` wrote it, and answers the media files it
    /// referenced (for the caller to remove). Throws `notFound` (no such post) or `forbidden` (someone else's).
    func deletePost(id: Int64, viewer: Int64) async throws -> [String]
    /// The viewer's own posts and those of everyone they follow, newest first. Posts that `known` already holds at
    /// their current version come as ``ListedPost/known(id:version:viewerHasLiked:)``, the others in full.
    func timeline(viewer: Int64, page: PageRequest, known: @escaping KnownPosts) async throws -> PageResult<ListedPost>
    /// One user's posts, newest first, as ``timeline(viewer:page:known:)`` lists them; nil when there is no such
    /// user.
    func posts(username: String, viewer: Int64, page: PageRequest, known: @escaping KnownPosts) async throws
        -> PageResult<ListedPost>?

    /// Posts whose caption carries `#tag` (any letter case; ``Hashtags``), newest first, in full; an unknown tag
    /// has no posts.
    func posts(tag: String, viewer: Int64, page: PageRequest) async throws -> PageResult<Post>
    /// Every post of a public account `viewer` may see, newest first: this server's people's only when `local`, or
    /// with the posts kept from other servers.
    func publicPosts(local: Bool, viewer: Int64, page: PageRequest) async throws -> PageResult<Post>

    /// What a data export holds of the user (nil when there is no such user), read in one transaction.
    func dataExport(userID: Int64) async throws -> UserDataExport?
    /// Up to `limit` posts stored before responsive variants, after the post `after` in ID order: each one's ID and
    /// the file name of its full JPEG.
    func postsWithoutVariants(after: Int64, limit: Int) async throws -> [(id: Int64, fullFile: String)]
    /// Gives a post stored before responsive variants its variants (a new version, published as
    /// ``StoreEvent/imageChanged(postID:version:)``). False when it has some already or is gone: the caller then
    /// removes the files it wrote.
    func setVariants(postID: Int64, variants: [StoredVariant]) async throws -> Bool

    /// Keeps a photo uploaded ahead of its post by `userID`, whose files are on disk; answers its ID. Uploads older
    /// than `expiringBefore` are forgotten meanwhile: their files are answered for removal.
    func createMediaUpload(_ photo: StoredPhoto, userID: Int64, expiringBefore: Date) async throws -> (
        id: Int64, expired: [String]
    )
    /// A photo the user uploaded and has not posted yet, or nil.
    func mediaUpload(id: Int64, userID: Int64) async throws -> StoredPhoto?
    /// Sets or clears (nil) the alt text of a photo the user uploaded and has not posted yet; answers the upload.
    /// Throws `notFound("media")` when there is no such upload of theirs.
    func setUploadAltText(id: Int64, userID: Int64, altText: String?) async throws -> StoredPhoto
    /// Forgets a photo the user uploaded and has not posted; answers its files for removal. Throws
    /// `notFound("media")` when there is no such upload of theirs.
    func deleteMediaUpload(id: Int64, userID: Int64) async throws -> [String]
    /// The signer of the URLs of private accounts' photos, under the key every instance shares.
    var mediaSigning: MediaSigning { get }
    /// Whether any account is private, and a number that grows whenever their files may have changed.
    var privateUsers: HiddenUsersSummary { get }
    /// Whether `user`'s account is private, from memory (every instance keeps it through the change stream).
    func accountIsPrivate(_ user: Int64) -> Bool
    /// The files of private accounts' posts (every photo and rendition): served only at signed URLs.
    func privateUsersMedia() async throws -> Set<String>

    /// Posts the photos the user uploaded ahead (at least one, distinct), in the order of `ids`, with `caption`, and
    /// forgets the uploads, in one transaction. Throws `notFound("media")` when one is not an upload of theirs.
    func createPost(fromUploads ids: [Int64], userID: Int64, caption: String) async throws -> Post
}

/// Answers whether the caller already holds a post at a version (for instance as rendered JSON); asked while the
/// list is read, so that a post it holds is neither decoded nor sent again.
public typealias KnownPosts = @Sendable (_ id: Int64, _ version: Int64) -> Bool

/// A post in a list read with ``KnownPosts``.
public enum ListedPost: Sendable, Equatable {
    /// A post the caller did not hold at this version. Boxed: a post is large and rarely listed in full once the
    /// caller holds it, so pages of known posts stay small arrays.
    indirect case post(Post)
    /// A post the caller holds at `version`, with the one field that depends on who reads it.
    case known(id: Int64, version: Int64, viewerHasLiked: Bool)
}

extension ListedPost {
    /// The post's ID.
    public var id: Int64 {
        switch self {
        case .post(let post): post.id
        case .known(let id, _, _): id
        }
    }

    /// The version the post was listed at.
    public var version: Int64 {
        switch self {
        case .post(let post): post.version
        case .known(_, let version, _): version
        }
    }

    /// Whether the reader likes the post.
    public var viewerHasLiked: Bool {
        switch self {
        case .post(let post): post.viewerHasLiked
        case .known(_, _, let viewerHasLiked): viewerHasLiked
        }
    }
}

extension PostStoring {
    /// The viewer's own posts and those of everyone they follow, newest first, in full.
    public func timeline(viewer: Int64, page: PageRequest) async throws -> PageResult<Post> {
        try await timeline(viewer: viewer, page: page, known: { _, _ in false }).fullPosts
    }

    /// One user's posts, newest first, in full; nil when there is no such user.
    public func posts(username: String, viewer: Int64, page: PageRequest) async throws -> PageResult<Post>? {
        try await posts(username: username, viewer: viewer, page: page, known: { _, _ in false })?.fullPosts
    }
}

extension PageResult<ListedPost> {
    /// The page of a list read with a `known` that held nothing.
    var fullPosts: PageResult<Post> {
        PageResult<Post>(
            items: items.map {
                guard case .post(let post) = $0 else { preconditionFailure("a post was listed as known") }
                return post
            }, nextKey: nextKey, newestKey: newestKey)
    }
}

extension PageResult<ListedPost> {
    /// The page of a newest-first post list from the rows read for `request`, which asked for one more than its
    /// limit (to learn whether more follow): newest first, with the keys to continue from. For `.newerThan` the rows
    /// are the posts just above the key, read oldest first, so that repeating with the new top fills any gap.
    package static func newestFirst(_ rows: [ListedPost], request: PageRequest) -> PageResult<ListedPost> {
        var items = rows
        let hasMore = items.count > request.limit
        if hasMore { items.removeLast() }
        if case .newerThan(let newer) = request.position {
            items.reverse()
            return PageResult(items: items, nextKey: nil, newestKey: items.first?.id ?? newer)
        }
        return PageResult(items: items, nextKey: hasMore ? items.last?.id : nil, newestKey: items.first?.id)
    }

    /// The listed posts that `known` does not hold at their listed version: those to read in full.
    package func missing(_ known: KnownPosts) -> [Int64] {
        items.compactMap { item -> Int64? in
            guard case .known(let id, let version, _) = item, !known(id, version) else { return nil }
            return id
        }
    }

    /// The page with the `missing` posts replaced by `full`, as read; a post deleted since it was listed (when the
    /// list came from memory) leaves the page.
    package func completed(missing: [Int64], full: [Post]) -> PageResult<ListedPost> {
        let full = Dictionary(full.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let wanted = Set(missing)
        var page = self
        page.items = items.compactMap { item in
            guard wanted.contains(item.id) else { return item }
            return full[item.id].map(ListedPost.post)
        }
        return page
    }
}

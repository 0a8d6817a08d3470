import Foundation

/// One stored rendition of a photo.
public struct ImageVariant: Codable, Sendable, Equatable {
    /// Where the file is served, relative to the server's origin (`/media/…`).
    public var url: String
    public var width: Int
    public var height: Int
    /// The file's media type (`image/webp`, `image/jpeg`); absent from servers that predate it (then JPEG).
    public var type: String?

    public init(url: String, width: Int, height: Int, type: String? = nil) {
        self.url = url
        self.width = width
        self.height = height
        self.type = type
    }

    /// The media type of a stored file, from the extension the server gives it.
    public static func mediaType(ofFile name: String) -> String {
        if name.hasSuffix(".webp") { return "image/webp" }
        if name.hasSuffix(".avif") { return "image/avif" }
        return "image/jpeg"
    }
}

/// How a photo is cut when it is shared: kept whole, or around its centre to one of the aspects a feed shows well
/// (Instagram's range runs from 1.91:1 to 4:5). Sent as the `crop` field of a new post.
public enum PhotoCrop: String, Codable, Sendable, CaseIterable {
    /// The whole photo, at its own aspect.
    case original
    /// 1:1.
    case square
    /// 4:5, the tallest a feed shows without cropping.
    case portrait
    /// 1.91:1, the widest.
    case landscape

    /// Width over height; nil for ``original``.
    public var aspectRatio: Double? {
        switch self {
        case .original: nil
        case .square: 1
        case .portrait: 4.0 / 5.0
        case .landscape: 1.91
        }
    }
}

/// A post's photo: its upright size and the variants a client can choose from.
public struct PostImage: Codable, Sendable, Equatable {
    /// Width of the upright original, in pixels; with `height` it gives the aspect ratio to reserve space.
    public var width: Int
    /// Height of the upright original, in pixels.
    public var height: Int
    /// JPEG, at most 1080 px wide (posts from before responsive variants: 1080 px on the long side); never
    /// upscaled. Every client can show it.
    public var full: ImageVariant
    /// A 320 × 320 square crop, JPEG.
    public var thumb: ImageVariant
    /// The photo at several widths (320, 640, 1080 and 1440 px, those the photo reaches, never upscaled) in a
    /// modern format (WebP), narrowest first, for `srcset` or for choosing by screen size; fall back to ``full``.
    /// Empty for posts stored before variants existed.
    public var variants: [ImageVariant]
    /// What the photo shows, in the author's words, for those who cannot see it (a screen reader reads it as the
    /// image's `alt`): at most ``PostImage/altTextLimit`` characters. Nil (absent from the JSON) when the author
    /// wrote none: say that the photo has no description, never the caption in its place.
    public var altText: String?

    /// The most characters an alt text may have (Mastodon's limit, and Pixelfed's).
    public static let altTextLimit = 1_500

    public init(
        width: Int, height: Int, full: ImageVariant, thumb: ImageVariant, variants: [ImageVariant] = [],
        altText: String? = nil
    ) {
        self.width = width
        self.height = height
        self.full = full
        self.thumb = thumb
        self.variants = variants
        self.altText = altText
    }

    private enum CodingKeys: String, CodingKey {
        case width, height, full, thumb, variants, altText
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        width = try container.decode(Int.self, forKey: .width)
        height = try container.decode(Int.self, forKey: .height)
        full = try container.decode(ImageVariant.self, forKey: .full)
        thumb = try container.decode(ImageVariant.self, forKey: .thumb)
        variants = try container.decodeIfPresent([ImageVariant].self, forKey: .variants) ?? []
        altText = try container.decodeIfPresent(String.self, forKey: .altText)
    }

    /// The narrowest rendition at least `pixels` wide (the widest when none is): a responsive variant, else
    /// ``full``. `acceptsVariants` false keeps to ``full`` (a client that cannot decode the variants' format).
    public func best(forWidth pixels: Int, acceptsVariants: Bool = true) -> ImageVariant {
        guard acceptsVariants, let widest = variants.last else { return full }
        return variants.first { $0.width >= pixels } ?? widest
    }
}

/// A photo post as every screen needs it, including what is specific to the viewer.
public struct Post: Codable, Sendable, Equatable, Identifiable {
    public var id: Int64
    public var createdAt: Date
    public var caption: String
    /// When the author last changed the caption; nil (and absent from the JSON) for a caption never edited.
    public var editedAt: Date?
    public var author: UserSummary
    /// Every photo of the post, in the author's order (1 to ``Post/photoLimit``). In the JSON the first is `image`
    /// (what every client before albums reads) and the whole list is `photos`, present only when there are several.
    public var photos: [PostImage]
    /// Exactly the number of likes the post has; nil (absent from the JSON) when its author hides the count from the
    /// reader (``likeCountHidden``): "Liked by alice and others".
    public var likeCount: Int?
    /// Whether the author hides the like count from everyone but themself; counts stay exact underneath.
    public var likeCountHidden: Bool
    /// Exactly the number of comments the post has.
    public var commentCount: Int
    /// Whether the requesting user has liked the post.
    public var viewerHasLiked: Bool
    /// Usernames of the most recent likers (at most ``Post/likersPreviewLimit``), for "Liked by alice, bob and 3 others".
    public var likers: [String]
    /// The newest comments (at most ``Post/recentCommentsLimit``), oldest first, for the lines under a feed card.
    public var recentComments: [Comment]
    /// A number that grows with every change to the post, so that clients can order updates.
    public var version: Int64
    /// For a post from another server, its page there ("see the original"); nil (absent from the JSON) for a post
    /// from here.
    public var original: String?

    /// The post's first photo: its cover, the one a grid shows.
    public var image: PostImage {
        get { photos[0] }
        set { photos[0] = newValue }
    }

    /// The most photos a post may hold unless the server is set otherwise (Mastodon's limit is 4, Pixelfed's 4 by
    /// default, Instagram's 20).
    public static let photoLimit = 10
    /// The most a server may be set to allow.
    public static let photoLimitCeiling = 20

    /// How many likers' usernames a post carries.
    public static let likersPreviewLimit = 3
    /// How many of its newest comments a post carries.
    public static let recentCommentsLimit = 2

    public init(
        id: Int64, createdAt: Date, caption: String, author: UserSummary, image: PostImage, likeCount: Int,
        commentCount: Int, viewerHasLiked: Bool, likers: [String], recentComments: [Comment] = [], version: Int64,
        editedAt: Date? = nil, likeCountHidden: Bool = false, morePhotos: [PostImage] = []
    ) {
        self.id = id
        self.createdAt = createdAt
        self.caption = caption
        self.editedAt = editedAt
        self.author = author
        self.photos = [image] + morePhotos
        self.likeCount = likeCount
        self.likeCountHidden = likeCountHidden
        self.commentCount = commentCount
        self.viewerHasLiked = viewerHasLiked
        self.likers = likers
        self.recentComments = recentComments
        self.version = version
    }

    enum CodingKeys: String, CodingKey {
        case id, createdAt, caption, editedAt, author, image, photos, likeCount, likeCountHidden, commentCount,
            viewerHasLiked, likers, recentComments, version, original
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(caption, forKey: .caption)
        try container.encodeIfPresent(editedAt, forKey: .editedAt)
        try container.encode(author, forKey: .author)
        try container.encode(image, forKey: .image)
        if photos.count > 1 { try container.encode(photos, forKey: .photos) }
        try container.encodeIfPresent(likeCount, forKey: .likeCount)
        try container.encode(likeCountHidden, forKey: .likeCountHidden)
        try container.encode(commentCount, forKey: .commentCount)
        try container.encode(viewerHasLiked, forKey: .viewerHasLiked)
        try container.encode(likers, forKey: .likers)
        try container.encode(recentComments, forKey: .recentComments)
        try container.encode(version, forKey: .version)
        try container.encodeIfPresent(original, forKey: .original)
    }

    /// Decodes a post; one from a server (or an offline cache) older than hidden like counts has them shown.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        caption = try container.decode(String.self, forKey: .caption)
        editedAt = try container.decodeIfPresent(Date.self, forKey: .editedAt)
        author = try container.decode(UserSummary.self, forKey: .author)
        let image = try container.decode(PostImage.self, forKey: .image)
        let photos = try container.decodeIfPresent([PostImage].self, forKey: .photos) ?? []
        self.photos = photos.isEmpty ? [image] : photos
        likeCount = try container.decodeIfPresent(Int.self, forKey: .likeCount)
        likeCountHidden = try container.decodeIfPresent(Bool.self, forKey: .likeCountHidden) ?? false
        commentCount = try container.decode(Int.self, forKey: .commentCount)
        viewerHasLiked = try container.decode(Bool.self, forKey: .viewerHasLiked)
        likers = try container.decode([String].self, forKey: .likers)
        recentComments = try container.decode([Comment].self, forKey: .recentComments)
        version = try container.decode(Int64.self, forKey: .version)
        original = try container.decodeIfPresent(String.self, forKey: .original)
    }

    /// Whether `viewer` may see the like count: everyone, unless the author hides it; the author always.
    public func showsLikeCount(to viewer: Int64) -> Bool {
        !likeCountHidden || viewer == author.id
    }

    /// The post as `viewer` may see it: without the like count when its author hides it from others.
    public func seen(by viewer: Int64) -> Post {
        guard !showsLikeCount(to: viewer) else { return self }
        var post = self
        post.likeCount = nil
        return post
    }
}

/// The answer to liking or unliking a post: the post's like state right after the change.
public struct LikeState: Codable, Sendable, Equatable {
    /// Nil when the post's author hides the count from the liker.
    public var likeCount: Int?
    public var viewerHasLiked: Bool
    /// The newest likers' usernames, as ``Post/likers``.
    public var likers: [String]
    /// The post's version after the change, to order this answer against live events about the same post.
    public var version: Int64

    public init(likeCount: Int?, viewerHasLiked: Bool, likers: [String], version: Int64) {
        self.likeCount = likeCount
        self.viewerHasLiked = viewerHasLiked
        self.likers = likers
        self.version = version
    }
}

/// A comment on a post.
public struct Comment: Codable, Sendable, Equatable, Identifiable {
    public var id: Int64
    public var postId: Int64
    public var author: UserSummary
    public var text: String
    public var createdAt: Date

    public init(id: Int64, postId: Int64, author: UserSummary, text: String, createdAt: Date) {
        self.id = id
        self.postId = postId
        self.author = author
        self.text = text
        self.createdAt = createdAt
    }
}

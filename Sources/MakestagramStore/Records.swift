import Foundation
import MakestagramAPI

/// What is needed to create a user.
public struct NewUser: Sendable {
    public var username: String
    public var displayName: String
    /// A bcrypt hash; the store never sees a password.
    public var passwordHash: String

    public init(username: String, displayName: String, passwordHash: String) {
        self.username = username
        self.displayName = displayName
        self.passwordHash = passwordHash
    }
}

/// A user's stored credentials, for checking a log-in.
public struct Credentials: Sendable {
    public var userID: Int64
    public var passwordHash: String
    /// Whether the account may log in; an account being deleted has no credentials.
    public var status: AccountStatus

    public init(userID: Int64, passwordHash: String, status: AccountStatus = .active) {
        self.userID = userID
        self.passwordHash = passwordHash
        self.status = status
    }
}

/// Whether an account is in use. Only active accounts are seen: a suspended account's profile, posts and comments
/// are hidden from everyone, as are those of an account being deleted (`users.status` in both stores).
public enum AccountStatus: String, Sendable, Equatable {
    case active
    /// Suspended by a moderator: log-in refused, everything the user made hidden, until the suspension is lifted.
    case suspended
    /// Its owner deleted it: hidden at once, its rows removed in batches (``Store/continueAccountDeletion(userID:limit:)``).
    case deleting
}

/// What one batch of an account's deletion did.
public struct AccountDeletionStep: Sendable, Equatable {
    /// Media files no row references any more, for the caller to remove.
    public var files: [String]
    /// Whether the account is gone (its user row deleted); otherwise more batches follow.
    public var finished: Bool
    /// Whether only its row is left, kept until other servers have been told it is gone (its farewell,
    /// ``AccountDeletionStoring/continueAccountDeletion(userID:limit:)``): ask again later.
    public var waiting: Bool

    public init(files: [String], finished: Bool, waiting: Bool = false) {
        self.files = files
        self.finished = finished
        self.waiting = waiting
    }
}

/// A stored image file and its pixel size.
public struct StoredVariant: Sendable, Equatable {
    /// The server-chosen file name inside the media folder.
    public var fileName: String
    public var width: Int
    public var height: Int

    public init(fileName: String, width: Int, height: Int) {
        self.fileName = fileName
        self.width = width
        self.height = height
    }

    /// As the API shows it.
    public var image: ImageVariant {
        ImageVariant(
            url: MediaPath.url(for: fileName), width: width, height: height,
            type: ImageVariant.mediaType(ofFile: fileName))
    }

    /// A post's responsive variants as its row keeps them (`posts.variants`): `<width>x<height>:<file>` for each,
    /// separated by spaces, narrowest first; nil when there are none (posts from before variants).
    public static func column(_ variants: [StoredVariant]) -> String? {
        variants.isEmpty ? nil : variants.map { "\($0.width)x\($0.height):\($0.fileName)" }.joined(separator: " ")
    }

    /// The variants of a `posts.variants` value (a malformed item is skipped).
    public static func variants(column: String?) -> [StoredVariant] {
        guard let column, !column.isEmpty else { return [] }
        return column.split(separator: " ").compactMap { item in
            guard let colon = item.firstIndex(of: ":"), let x = item.firstIndex(of: "x"), x < colon,
                let width = Int(item[..<x]), let height = Int(item[item.index(after: x)..<colon])
            else { return nil }
            return StoredVariant(fileName: String(item[item.index(after: colon)...]), width: width, height: height)
        }
    }
}

/// One photo whose files are on disk: its upright size, renditions and alt text.
public struct StoredPhoto: Sendable, Equatable {
    /// Upright size of the original.
    public var width: Int
    public var height: Int
    public var full: StoredVariant
    public var thumb: StoredVariant
    /// The responsive variants, narrowest first.
    public var variants: [StoredVariant]
    /// The photo's description (``PostImage/altText``), checked already.
    public var altText: String?

    public init(
        width: Int, height: Int, full: StoredVariant, thumb: StoredVariant, variants: [StoredVariant] = [],
        altText: String? = nil
    ) {
        self.width = width
        self.height = height
        self.full = full
        self.thumb = thumb
        self.variants = variants
        self.altText = altText
    }

    /// Every file of the photo.
    public var fileNames: [String] { [full.fileName, thumb.fileName] + variants.map(\.fileName) }

    /// As the API shows it.
    public var image: PostImage {
        PostImage(
            width: width, height: height, full: full.image, thumb: thumb.image, variants: variants.map(\.image),
            altText: altText)
    }
}

/// What is needed to create a post; its files must already be on disk.
public struct NewPost: Sendable {
    public var authorID: Int64
    public var caption: String
    /// The photos in the author's order, at least one. The first is the post's cover, kept in the post's own row.
    public var photos: [StoredPhoto]

    public init(authorID: Int64, caption: String, photos: [StoredPhoto]) {
        precondition(!photos.isEmpty, "a post has a photo")
        self.authorID = authorID
        self.caption = caption
        self.photos = photos
    }

    /// A post of one photo.
    public init(
        authorID: Int64, caption: String, width: Int, height: Int, full: StoredVariant, thumb: StoredVariant,
        variants: [StoredVariant] = [], altText: String? = nil
    ) {
        self.init(
            authorID: authorID, caption: caption,
            photos: [
                StoredPhoto(
                    width: width, height: height, full: full, thumb: thumb, variants: variants, altText: altText)
            ])
    }

    /// The first photo.
    public var cover: StoredPhoto { photos[0] }

    /// The photos after the first, in order.
    public var morePhotos: ArraySlice<StoredPhoto> { photos.dropFirst() }
}

/// The files of an avatar already on disk: a small and a large square.
public struct AvatarFiles: Sendable, Equatable {
    public var small: String
    public var large: String

    public init(small: String, large: String) {
        self.small = small
        self.large = large
    }
}

/// Who uses a session, as its requests say: their User-Agent and the client's address (shown to the session's owner
/// in their list of sessions). Each is at most ``maximumLength`` characters.
public struct SessionClient: Sendable, Equatable {
    public var userAgent: String?
    public var address: String?

    public static let maximumLength = 300

    public init(userAgent: String? = nil, address: String? = nil) {
        self.userAgent = userAgent.map { String($0.prefix(Self.maximumLength)) }
        self.address = address.map { String($0.prefix(Self.maximumLength)) }
    }
}

/// One of a user's sessions.
public struct SessionRecord: Sendable, Equatable {
    public var tokenHash: [UInt8]
    public var createdAt: Date
    /// When a request last used it (noted at most once a minute).
    public var lastUsedAt: Date
    public var client: SessionClient

    public init(tokenHash: [UInt8], createdAt: Date, lastUsedAt: Date, client: SessionClient) {
        self.tokenHash = tokenHash
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.client = client
    }
}

/// Everything a user's data export holds but the photos' bytes: read in one transaction, so the lists agree.
public struct UserDataExport: Sendable {
    public struct ExportedPost: Codable, Sendable, Equatable {
        public var id: Int64
        public var createdAt: Date
        public var caption: String
        public var editedAt: Date?
        public var likeCount: Int
        public var commentCount: Int
        public var width: Int
        public var height: Int
        /// The stored full JPEG, which the archive holds as `photos/<id>.jpg`.
        public var fileName: String
        /// The photo's alt text, if its author wrote one.
        public var altText: String?
        /// The album's photos after the first, in order.
        public var morePhotos: [ExportedPhoto]

        public init(
            id: Int64, createdAt: Date, caption: String, editedAt: Date?, likeCount: Int, commentCount: Int, width: Int,
            height: Int, fileName: String, altText: String? = nil, morePhotos: [ExportedPhoto] = []
        ) {
            self.altText = altText
            self.morePhotos = morePhotos
            self.id = id
            self.createdAt = createdAt
            self.caption = caption
            self.editedAt = editedAt
            self.likeCount = likeCount
            self.commentCount = commentCount
            self.width = width
            self.height = height
            self.fileName = fileName
        }
    }

    /// A photo of an album after its first: its stored full JPEG, size and alt text.
    public struct ExportedPhoto: Codable, Sendable, Equatable {
        public var fileName: String
        public var width: Int
        public var height: Int
        public var altText: String?

        public init(fileName: String, width: Int, height: Int, altText: String?) {
            self.fileName = fileName
            self.width = width
            self.height = height
            self.altText = altText
        }
    }

    public struct ExportedComment: Codable, Sendable, Equatable {
        public var id: Int64
        public var postId: Int64
        public var text: String
        public var createdAt: Date

        public init(id: Int64, postId: Int64, text: String, createdAt: Date) {
            self.id = id
            self.postId = postId
            self.text = text
            self.createdAt = createdAt
        }
    }

    public var profile: UserProfile
    /// The large avatar's file, if any.
    public var avatarFile: String?
    /// Oldest first.
    public var posts: [ExportedPost]
    /// Every comment the user wrote, on anyone's posts, oldest first.
    public var comments: [ExportedComment]
    /// Usernames, in the order the follows were made.
    public var following: [String]
    public var followers: [String]
    /// Usernames of the people the user mutes, in the order the mutes were made.
    public var muted: [String]
    /// Usernames of the people the user blocks, in the order the blocks were made.
    public var blocked: [String]

    public init(
        profile: UserProfile, avatarFile: String?, posts: [ExportedPost], comments: [ExportedComment],
        following: [String], followers: [String], muted: [String] = [], blocked: [String] = []
    ) {
        self.muted = muted
        self.blocked = blocked
        self.profile = profile
        self.avatarFile = avatarFile
        self.posts = posts
        self.comments = comments
        self.following = following
        self.followers = followers
    }
}

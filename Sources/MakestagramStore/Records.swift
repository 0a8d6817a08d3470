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

    public init(userID: Int64, passwordHash: String) {
        self.userID = userID
        self.passwordHash = passwordHash
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

/// What is needed to create a post; its files must already be on disk.
public struct NewPost: Sendable {
    public var authorID: Int64
    public var caption: String
    /// Upright size of the original.
    public var width: Int
    public var height: Int
    public var full: StoredVariant
    public var thumb: StoredVariant
    /// The responsive variants, narrowest first.
    public var variants: [StoredVariant]

    public init(
        authorID: Int64, caption: String, width: Int, height: Int, full: StoredVariant, thumb: StoredVariant,
        variants: [StoredVariant] = []
    ) {
        self.authorID = authorID
        self.caption = caption
        self.width = width
        self.height = height
        self.full = full
        self.thumb = thumb
        self.variants = variants
    }
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

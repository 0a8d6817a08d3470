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

    public init(authorID: Int64, caption: String, width: Int, height: Int, full: StoredVariant, thumb: StoredVariant) {
        self.authorID = authorID
        self.caption = caption
        self.width = width
        self.height = height
        self.full = full
        self.thumb = thumb
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

/// The body of `POST /api/v1/accounts`.
public struct SignUpRequest: Codable, Sendable {
    public var username: String
    public var password: String
    public var displayName: String

    public init(username: String, password: String, displayName: String) {
        self.username = username
        self.password = password
        self.displayName = displayName
    }
}

/// The body of `POST /api/v1/sessions`.
public struct LogInRequest: Codable, Sendable {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}

/// The answer to signing up or logging in: the user and a bearer token for later requests.
public struct AuthResponse: Codable, Sendable {
    public var user: UserProfile
    /// Send as `Authorization: Bearer <token>`.
    public var token: String

    public init(user: UserProfile, token: String) {
        self.user = user
        self.token = token
    }
}

/// The body of `POST /api/v1/posts/{id}/comments`.
public struct NewCommentRequest: Codable, Sendable {
    public var text: String

    public init(text: String) { self.text = text }
}

/// The body of `PATCH /api/v1/posts/{id}`: the post's new caption (an empty one removes it).
public struct EditPostRequest: Codable, Sendable {
    /// The new caption; absent: unchanged.
    public var caption: String?
    /// Hide the like count from everyone else (true) or show it again (false); absent: unchanged.
    public var hideLikeCount: Bool?
    /// The new alt text (``PostImage/altText``; empty removes it) of the photo ``photo`` names; absent: unchanged.
    public var altText: String?
    /// Which photo ``altText`` describes, counted from 1 in the post's order; absent: the first.
    public var photo: Int?

    public init(caption: String? = nil, hideLikeCount: Bool? = nil, altText: String? = nil, photo: Int? = nil) {
        self.caption = caption
        self.hideLikeCount = hideLikeCount
        self.altText = altText
        self.photo = photo
    }
}

/// The body of `PATCH /api/v1/me`: the fields to change (those left out stay as they are).
public struct EditProfileRequest: Codable, Sendable {
    public var displayName: String?
    public var bio: String?
    /// Whether new posts hide their like count (each post's own switch can change it later).
    public var hideLikeCounts: Bool?
    /// Whether the account is private (``UserProfile/isPrivate``). Switching to public accepts every pending
    /// request; switching to private keeps the followers it has.
    public var isPrivate: Bool?

    public init(displayName: String? = nil, bio: String? = nil, hideLikeCounts: Bool? = nil, isPrivate: Bool? = nil) {
        self.displayName = displayName
        self.bio = bio
        self.hideLikeCounts = hideLikeCounts
        self.isPrivate = isPrivate
    }
}

/// The body of `POST /api/v1/posts/{id}/reports`.
public struct ReportRequest: Codable, Sendable {
    public var reason: String
    /// For a post from another server: report it to that server too (as this server; the reporter is not named).
    public var forward: Bool?

    public init(reason: String, forward: Bool? = nil) {
        self.reason = reason
        self.forward = forward
    }
}

/// A post of photos uploaded first (`POST /uploads`, one request each, so that each shows its own progress and can be
/// cancelled): their IDs in the order the post shows them.
public struct NewPostRequest: Codable, Sendable {
    /// The caption; absent: none.
    public var caption: String?
    /// The uploads, 1 to the server's photo limit (``Post/photoLimit`` unless set otherwise), each once.
    public var uploads: [Int64]

    public init(caption: String? = nil, uploads: [Int64]) {
        self.caption = caption
        self.uploads = uploads
    }
}

/// A photo uploaded ahead of the post that will show it: kept unposted for a day.
public struct UploadedPhoto: Codable, Sendable, Equatable {
    public var id: Int64
    /// The photo as its post will show it, with the alt text sent with it.
    public var image: PostImage

    public init(id: Int64, image: PostImage) {
        self.id = id
        self.image = image
    }
}

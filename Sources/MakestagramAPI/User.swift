import Foundation

/// The short form of a user that appears inside posts, comments and lists.
public struct UserSummary: Codable, Sendable, Equatable, Hashable {
    /// The user's stable numeric identifier.
    public var id: Int64
    /// The unique, lower-case handle (`[a-z0-9_.]`, 3–30 characters).
    public var username: String
    /// The name shown beside the handle.
    public var displayName: String
    /// Where the user's avatar image is served, or nil when they have none.
    public var avatarURL: String?
    /// In lists of people (search, suggestions, followers, following, likers): whether the requesting user follows
    /// them, for a Follow button. Absent elsewhere, and on the requesting user themself.
    public var viewerFollows: Bool?

    public init(id: Int64, username: String, displayName: String, avatarURL: String? = nil, viewerFollows: Bool? = nil)
    {
        self.id = id
        self.username = username
        self.displayName = displayName
        self.avatarURL = avatarURL
        self.viewerFollows = viewerFollows
    }
}

/// A user's profile page: who they are, their counts and whether the viewer follows them.
public struct UserProfile: Codable, Sendable, Equatable {
    public var id: Int64
    public var username: String
    public var displayName: String
    /// The small square avatar (``UserProfile/avatarSmallSize`` px), as in ``UserSummary``; nil: none (initials).
    public var avatarURL: String?
    /// The large square avatar (``UserProfile/avatarLargeSize`` px) for the profile page; nil: none.
    public var avatarLargeURL: String?
    /// A few lines about the user (at most ``Limits/bioLength`` characters); empty when they wrote none.
    public var bio: String
    /// How many posts the user has published.
    public var postCount: Int
    /// How many users follow this user.
    public var followerCount: Int
    /// How many users this user follows.
    public var followingCount: Int
    /// Whether the requesting user follows this user.
    public var viewerFollows: Bool
    /// When the account was created.
    public var createdAt: Date
    /// On your own profile only: whether your new posts hide their like count. Nil (absent) on others' profiles.
    public var hideLikeCounts: Bool?
    /// On your own profile only: whether you are a moderator (and may read the reports queue). Nil elsewhere.
    public var isModerator: Bool?
    /// On others' profiles: whether you mute them (their posts and activity stay out of your feed and activity;
    /// they are not told). Nil (absent) on your own.
    public var viewerMutes: Bool?
    /// On others' profiles: whether you block them (neither of you sees the other, follows or reaches the other
    /// until you unblock). Nil (absent) on your own. Someone who blocks you has no profile for you: it answers 404.
    public var viewerBlocks: Bool?
    /// Whether the account is private: its posts are seen only by the followers it accepted, and a follow of it is a
    /// request its owner approves or declines.
    public var isPrivate: Bool
    /// On others' profiles: whether you asked to follow this private account and it has not answered yet. Nil
    /// (absent) on your own.
    public var viewerRequested: Bool?

    /// The side of the small avatar, in pixels (shown at 32–44 px, three times that for dense screens).
    public static let avatarSmallSize = 150
    /// The side of the large avatar, in pixels.
    public static let avatarLargeSize = 480

    public init(
        id: Int64, username: String, displayName: String, avatarURL: String?, avatarLargeURL: String? = nil,
        bio: String = "", postCount: Int, followerCount: Int, followingCount: Int, viewerFollows: Bool, createdAt: Date,
        hideLikeCounts: Bool? = nil, isModerator: Bool? = nil, viewerMutes: Bool? = nil,
        viewerBlocks: Bool? = nil, isPrivate: Bool = false, viewerRequested: Bool? = nil
    ) {
        self.viewerMutes = viewerMutes
        self.viewerBlocks = viewerBlocks
        self.isPrivate = isPrivate
        self.viewerRequested = viewerRequested
        self.id = id
        self.username = username
        self.displayName = displayName
        self.avatarURL = avatarURL
        self.avatarLargeURL = avatarLargeURL
        self.bio = bio
        self.postCount = postCount
        self.followerCount = followerCount
        self.followingCount = followingCount
        self.viewerFollows = viewerFollows
        self.createdAt = createdAt
        self.hideLikeCounts = hideLikeCounts
        self.isModerator = isModerator
    }

    /// The summary form of this profile.
    public var summary: UserSummary {
        UserSummary(id: id, username: username, displayName: displayName, avatarURL: avatarURL)
    }
}

/// The answer to muting or unmuting a user.
public struct MuteState: Codable, Sendable, Equatable {
    /// Whether the requesting user now mutes them.
    public var viewerMutes: Bool

    public init(viewerMutes: Bool) {
        self.viewerMutes = viewerMutes
    }
}

/// The answer to blocking or unblocking a user.
public struct BlockState: Codable, Sendable, Equatable {
    /// Whether the requesting user now blocks them.
    public var viewerBlocks: Bool

    public init(viewerBlocks: Bool) {
        self.viewerBlocks = viewerBlocks
    }
}

/// The answer to following or unfollowing a user.
public struct FollowState: Codable, Sendable, Equatable {
    /// The followed user's follower count after the change.
    public var followerCount: Int
    /// Whether the requesting user now follows them.
    public var viewerFollows: Bool
    /// Whether the follow waits for a private account's owner to approve it (``viewerFollows`` is false meanwhile).
    public var viewerRequested: Bool

    public init(followerCount: Int, viewerFollows: Bool, viewerRequested: Bool = false) {
        self.followerCount = followerCount
        self.viewerFollows = viewerFollows
        self.viewerRequested = viewerRequested
    }

    private enum CodingKeys: String, CodingKey {
        case followerCount, viewerFollows, viewerRequested
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        followerCount = try container.decode(Int.self, forKey: .followerCount)
        viewerFollows = try container.decode(Bool.self, forKey: .viewerFollows)
        viewerRequested = try container.decodeIfPresent(Bool.self, forKey: .viewerRequested) ?? false
    }
}

import Foundation

/// One line of a user's activity: what others did to them, grouped as people read it — the likes of one post on
/// one day ("bob and 3 others liked your photo"), the follows of one day ("bob and carol started following you"),
/// one comment (with its text), or one mention of them in a caption or a comment.
public struct ActivityGroup: Codable, Sendable, Equatable {
    /// What happened.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case like, comment, follow
        /// Someone named the user (`@username`) in a caption (``ActivityGroup/post``) or a comment
        /// (``ActivityGroup/comment`` too).
        case mention
        /// Someone asked to follow the user's private account: the group's one actor, to approve or decline.
        case followRequest = "follow_request"
    }

    /// Stable while the group exists (for example `like:42:20416`): a later like of the same post on the same day
    /// joins this group, which then moves to the top.
    public var id: String
    public var kind: Kind
    /// The newest actors first, at most ``ActivityGroup/actorsShown``.
    public var actors: [UserSummary]
    /// How many people did it (one row each), of whom ``actors`` are the newest.
    public var actorCount: Int
    /// The post it is about (likes and comments), with its thumbnail.
    public var post: ActivityPost?
    /// The comment's text (comments, and mentions in a comment).
    public var comment: ActivityComment?
    /// When its newest action happened.
    public var createdAt: Date
    /// Whether any of its actions is unread.
    public var unread: Bool
    /// The ID of its newest action: pass the first group's as `through` to mark what was shown as read.
    public var latestId: Int64

    /// How many actors a group names.
    public static let actorsShown = 3

    public init(
        id: String, kind: Kind, actors: [UserSummary], actorCount: Int, post: ActivityPost?,
        comment: ActivityComment?, createdAt: Date, unread: Bool, latestId: Int64
    ) {
        self.id = id
        self.kind = kind
        self.actors = actors
        self.actorCount = actorCount
        self.post = post
        self.comment = comment
        self.createdAt = createdAt
        self.unread = unread
        self.latestId = latestId
    }
}

/// The post an activity is about.
public struct ActivityPost: Codable, Sendable, Equatable {
    public var id: Int64
    /// The post's square thumbnail.
    public var thumbnailURL: String

    public init(id: Int64, thumbnailURL: String) {
        self.id = id
        self.thumbnailURL = thumbnailURL
    }
}

/// The comment an activity is about.
public struct ActivityComment: Codable, Sendable, Equatable {
    public var id: Int64
    public var text: String

    public init(id: Int64, text: String) {
        self.id = id
        self.text = text
    }
}

/// A user's unread activity count, as `GET /api/v1/activity/unread` and `POST /api/v1/activity/read` answer it
/// and as the `activity.changed` live message carries it.
public struct ActivityUnread: Codable, Sendable, Equatable {
    /// How many actions (a like, a comment, a follow each) the user has not marked as read.
    public var unreadCount: Int

    public init(unreadCount: Int) {
        self.unreadCount = unreadCount
    }
}

/// The body of `POST /api/v1/activity/read`.
public struct MarkActivityRead: Codable, Sendable, Equatable {
    /// Marks the actions up to this ID (``ActivityGroup/latestId`` of the newest group shown) as read; absent: all.
    public var through: Int64?

    public init(through: Int64? = nil) {
        self.through = through
    }
}

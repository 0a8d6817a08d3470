import Foundation

/// The live-update protocol spoken on `GET /api/v1/events` (a WebSocket); see docs/live-updates.md.
public enum LiveProtocol {
    /// The protocol version the server announces in ``LiveServerMessage/hello(_:)``.
    public static let version = 1
    /// The most posts one connection may be subscribed to: more than any screen shows (a profile scrolled through
    /// 500 posts, with the feed's cards still kept).
    public static let maxSubscriptions = 1000
    /// The work a connection may ask for by default: one per message, one more per post newly subscribed to;
    /// 2,000 per 10 s is two full resubscriptions at the cap in a burst, 200 a second after that.
    public static let defaultWork = RateLimit(2000, per: .seconds(10))
}

/// Close codes the server uses, beside the standard 1000 (normal) and 1001 (server going away).
public enum LiveCloseCode {
    /// The client fell too far behind; reconnect and subscribe again: the snapshots bring it up to date.
    public static let resync: UInt16 = 4000
    /// The session ended (log-out or revoked token); do not reconnect with the same token.
    public static let sessionEnded: UInt16 = 4001
    /// The bearer token or ticket was missing, wrong, expired or already used; log in or get a new ticket.
    public static let unauthorized: UInt16 = 4002
    /// The account was suspended by the moderators or deleted by its owner; do not reconnect. The close reason says
    /// which ("account suspended", "account deleted").
    public static let accountClosed: UInt16 = 4003
    /// The user opened too many connections (at once, or in a short time); reconnect later, with backoff.
    public static let tryAgainLater: UInt16 = 1013
}

/// A message from the client.
public enum LiveClientMessage: Codable, Sendable, Equatable {
    /// Start receiving a post's events; the server first sends each post's current state.
    case subscribe(posts: [Int64])
    /// Stop receiving a post's events.
    case unsubscribe(posts: [Int64])

    enum CodingKeys: String, CodingKey { case type, posts }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        let posts = try container.decode([Int64].self, forKey: .posts)
        switch type {
        case "subscribe": self = .subscribe(posts: posts)
        case "unsubscribe": self = .unsubscribe(posts: posts)
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "unknown message type '\(type)'")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .subscribe(let posts):
            try container.encode("subscribe", forKey: .type)
            try container.encode(posts, forKey: .posts)
        case .unsubscribe(let posts):
            try container.encode("unsubscribe", forKey: .type)
            try container.encode(posts, forKey: .posts)
        }
    }
}

/// The first message on every connection.
public struct LiveHello: Codable, Sendable, Equatable {
    public var `protocol`: Int
    /// Whom the connection is authenticated as.
    public var user: UserSummary
    public var maxSubscriptions: Int

    public init(protocol: Int, user: UserSummary, maxSubscriptions: Int) {
        self.protocol = `protocol`
        self.user = user
        self.maxSubscriptions = maxSubscriptions
    }
}

/// The answer to a subscribe message, sent before the snapshots.
public struct LiveSubscribed: Codable, Sendable, Equatable {
    /// The posts now subscribed to; a snapshot of each follows.
    public var posts: [Int64]
    /// Requested posts that do not exist or that the user may not see; nothing will be sent about them.
    public var unavailable: [Int64]

    public init(posts: [Int64], unavailable: [Int64]) {
        self.posts = posts
        self.unavailable = unavailable
    }
}

/// A like or unlike, with the post's state after it as the recipient sees it.
public struct LiveLike: Codable, Sendable, Equatable {
    public var postId: Int64
    public var version: Int64
    /// Who liked or unliked.
    public var actor: UserSummary
    /// Nil when the post's author hides the count from the recipient.
    public var likeCount: Int?
    public var likers: [String]
    /// Whether the recipient has liked the post (true only if the recipient is the one who liked it, or liked it
    /// before).
    public var viewerHasLiked: Bool

    public init(
        postId: Int64, version: Int64, actor: UserSummary, likeCount: Int?, likers: [String], viewerHasLiked: Bool
    ) {
        self.postId = postId
        self.version = version
        self.actor = actor
        self.likeCount = likeCount
        self.likers = likers
        self.viewerHasLiked = viewerHasLiked
    }
}

/// A new comment and the post's comment count after it.
public struct LiveCommentCreated: Codable, Sendable, Equatable {
    public var postId: Int64
    public var version: Int64
    public var comment: Comment
    public var commentCount: Int

    public init(postId: Int64, version: Int64, comment: Comment, commentCount: Int) {
        self.postId = postId
        self.version = version
        self.comment = comment
        self.commentCount = commentCount
    }
}

/// A deleted comment and the post's comment count after it.
public struct LiveCommentDeleted: Codable, Sendable, Equatable {
    public var postId: Int64
    public var version: Int64
    public var commentId: Int64
    public var commentCount: Int

    public init(postId: Int64, version: Int64, commentId: Int64, commentCount: Int) {
        self.postId = postId
        self.version = version
        self.commentId = commentId
        self.commentCount = commentCount
    }
}

/// A post whose photo changed without its caption (its author changed its alt text, or it was given new
/// renditions): read it again (`GET /api/v1/posts/:id`) if it is on screen.
public struct LivePhotoChanged: Codable, Sendable, Equatable {
    public var postId: Int64
    public var version: Int64

    public init(postId: Int64, version: Int64) {
        self.postId = postId
        self.version = version
    }
}

/// A post whose author edited its caption.
public struct LivePostEdited: Codable, Sendable, Equatable {
    public var postId: Int64
    public var version: Int64
    public var caption: String
    public var editedAt: Date

    public init(postId: Int64, version: Int64, caption: String, editedAt: Date) {
        self.postId = postId
        self.version = version
        self.caption = caption
        self.editedAt = editedAt
    }
}

/// A post's author hid its like count from others, or showed it again.
public struct LiveLikeCountVisibility: Codable, Sendable, Equatable {
    public var postId: Int64
    public var version: Int64
    public var likeCountHidden: Bool
    /// The count, for those who may see it now (everyone when shown, only the author when hidden).
    public var likeCount: Int?

    public init(postId: Int64, version: Int64, likeCountHidden: Bool, likeCount: Int?) {
        self.postId = postId
        self.version = version
        self.likeCountHidden = likeCountHidden
        self.likeCount = likeCount
    }
}

/// A deleted post.
public struct LivePostDeleted: Codable, Sendable, Equatable {
    public var postId: Int64
    public var version: Int64

    public init(postId: Int64, version: Int64) {
        self.postId = postId
        self.version = version
    }
}

/// The `code` of a ``LiveError``.
public enum LiveErrorCode: String, Codable, Sendable, CaseIterable {
    /// The message is not a subscribe or an unsubscribe.
    case badMessage = "bad_message"
    /// Subscribing would pass ``LiveProtocol/maxSubscriptions``; the posts beyond were not subscribed.
    case tooManySubscriptions = "too_many_subscriptions"
    /// The connection asked for more work lately (messages, and posts subscribed to) than its budget allows;
    /// nothing was done. ``LiveError/retryAfter`` says when to send it again.
    case rateLimited = "rate_limited"
    /// The server failed to do it; try again.
    case internalError = "internal_error"
}

/// A complaint about a client message; the connection stays open.
public struct LiveError: Codable, Sendable, Equatable {
    /// Stable, machine-readable: one of ``LiveErrorCode`` (a string, so that a newer server's codes still decode).
    public var code: String
    public var detail: String
    /// The type of the message refused (`subscribe` or `unsubscribe`), when one was.
    public var refused: String?
    /// The posts the refused message named whose subscription it did not change: for a subscribe, the posts that
    /// stay unsubscribed; for an unsubscribe, those that stay subscribed. A client keeps what it believes it is
    /// subscribed to equal to the server's by applying them.
    public var posts: [Int64]?
    /// For ``LiveErrorCode/rateLimited`` and ``LiveErrorCode/internalError``: seconds after which the same message
    /// will be accepted.
    public var retryAfter: Int?

    public init(
        code: LiveErrorCode, detail: String, refused: String? = nil, posts: [Int64]? = nil, retryAfter: Int? = nil
    ) {
        self.code = code.rawValue
        self.detail = detail
        self.refused = refused
        self.posts = posts
        self.retryAfter = retryAfter
    }
}

/// A message from the server. Every post event carries the post's `version`: a client applies an event only when
/// its version is greater than the one it holds, and so never goes back to an older state.
public enum LiveServerMessage: Codable, Sendable, Equatable {
    case hello(LiveHello)
    case subscribed(LiveSubscribed)
    /// A subscribed post's whole current state, as the timeline returns it.
    case snapshot(Post)
    case liked(LiveLike)
    case unliked(LiveLike)
    case commentCreated(LiveCommentCreated)
    case commentDeleted(LiveCommentDeleted)
    /// A post entering the recipient's home timeline, as the timeline returns it.
    case postCreated(Post)
    /// A subscribed post's caption was edited.
    case postEdited(LivePostEdited)
    /// A subscribed post's photo changed: its alt text, or its renditions.
    case photoChanged(LivePhotoChanged)
    /// A subscribed post's author hid or showed its like count.
    case likeCountVisibility(LiveLikeCountVisibility)
    /// A user changed their display name or avatar: every place that shows them takes the new summary.
    case userUpdated(UserSummary)
    case postDeleted(LivePostDeleted)
    /// A user's account was suspended or deleted: every post and comment of theirs leaves the screen.
    case userRemoved(LiveUserRemoved)
    /// The recipient's unread activity count changed: someone liked, commented on or followed (or took it back),
    /// or the recipient read their activity on another screen.
    case activityChanged(ActivityUnread)
    case error(LiveError)

    /// The `type` field of each message.
    public var type: String {
        switch self {
        case .hello: "hello"
        case .subscribed: "subscribed"
        case .snapshot: "post.snapshot"
        case .liked: "post.liked"
        case .unliked: "post.unliked"
        case .commentCreated: "comment.created"
        case .commentDeleted: "comment.deleted"
        case .postCreated: "post.created"
        case .postEdited: "post.edited"
        case .photoChanged: "post.photoChanged"
        case .likeCountVisibility: "post.likeCountVisibility"
        case .userUpdated: "user.updated"
        case .postDeleted: "post.deleted"
        case .userRemoved: "user.removed"
        case .activityChanged: "activity.changed"
        case .error: "error"
        }
    }

    /// The post and version the message is about, for messages that change a post.
    public var postVersion: (postID: Int64, version: Int64)? {
        switch self {
        case .snapshot(let post), .postCreated(let post): (post.id, post.version)
        case .liked(let like), .unliked(let like): (like.postId, like.version)
        case .commentCreated(let event): (event.postId, event.version)
        case .commentDeleted(let event): (event.postId, event.version)
        case .postEdited(let event): (event.postId, event.version)
        case .photoChanged(let event): (event.postId, event.version)
        case .likeCountVisibility(let event): (event.postId, event.version)
        case .postDeleted(let event): (event.postId, event.version)
        case .hello, .subscribed, .error, .userUpdated, .activityChanged, .userRemoved: nil
        }
    }

    enum CodingKeys: String, CodingKey { case type, post, user }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "hello": self = .hello(try LiveHello(from: decoder))
        case "subscribed": self = .subscribed(try LiveSubscribed(from: decoder))
        case "post.snapshot": self = .snapshot(try container.decode(Post.self, forKey: .post))
        case "post.liked": self = .liked(try LiveLike(from: decoder))
        case "post.unliked": self = .unliked(try LiveLike(from: decoder))
        case "comment.created": self = .commentCreated(try LiveCommentCreated(from: decoder))
        case "comment.deleted": self = .commentDeleted(try LiveCommentDeleted(from: decoder))
        case "post.created": self = .postCreated(try container.decode(Post.self, forKey: .post))
        case "post.edited": self = .postEdited(try LivePostEdited(from: decoder))
        case "post.photoChanged": self = .photoChanged(try LivePhotoChanged(from: decoder))
        case "post.likeCountVisibility": self = .likeCountVisibility(try LiveLikeCountVisibility(from: decoder))
        case "user.updated": self = .userUpdated(try container.decode(UserSummary.self, forKey: .user))
        case "post.deleted": self = .postDeleted(try LivePostDeleted(from: decoder))
        case "user.removed": self = .userRemoved(try LiveUserRemoved(from: decoder))
        case "activity.changed": self = .activityChanged(try ActivityUnread(from: decoder))
        case "error": self = .error(try LiveError(from: decoder))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "unknown message type '\(type)'")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .hello(let body): try body.encode(to: encoder)
        case .subscribed(let body): try body.encode(to: encoder)
        case .snapshot(let post), .postCreated(let post): try container.encode(post, forKey: .post)
        case .liked(let body), .unliked(let body): try body.encode(to: encoder)
        case .commentCreated(let body): try body.encode(to: encoder)
        case .commentDeleted(let body): try body.encode(to: encoder)
        case .postEdited(let body): try body.encode(to: encoder)
        case .photoChanged(let body): try body.encode(to: encoder)
        case .likeCountVisibility(let body): try body.encode(to: encoder)
        case .userUpdated(let user): try container.encode(user, forKey: .user)
        case .postDeleted(let body): try body.encode(to: encoder)
        case .userRemoved(let body): try body.encode(to: encoder)
        case .activityChanged(let body): try body.encode(to: encoder)
        case .error(let body): try body.encode(to: encoder)
        }
    }
}

/// A user whose account was suspended or deleted.
public struct LiveUserRemoved: Codable, Sendable, Equatable {
    public var userId: Int64

    public init(userId: Int64) { self.userId = userId }
}

/// A single-use ticket for opening the event stream: `GET /api/v1/events?ticket=…`.
public struct EventTicket: Codable, Sendable, Equatable {
    public var ticket: String
    /// After this moment the ticket is refused.
    public var expiresAt: Date

    public init(ticket: String, expiresAt: Date) {
        self.ticket = ticket
        self.expiresAt = expiresAt
    }
}

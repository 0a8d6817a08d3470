import Foundation

/// A post in the moderators' queue: reported, and not yet handled.
public struct ReportedPost: Codable, Sendable, Equatable {
    public var post: Post
    /// How many reports of it wait to be handled.
    public var reportCount: Int
    /// When the oldest of them was filed: the queue is ordered by it, oldest first.
    public var firstReportedAt: Date
    /// The waiting reports, oldest first (at most ``ReportedPost/reportsShown``).
    public var reports: [PostReport]

    /// The most reports a queue item lists; ``reportCount`` counts them all.
    public static let reportsShown = 20

    public init(post: Post, reportCount: Int, firstReportedAt: Date, reports: [PostReport]) {
        self.post = post
        self.reportCount = reportCount
        self.firstReportedAt = firstReportedAt
        self.reports = reports
    }
}

/// One user's report of a post.
public struct PostReport: Codable, Sendable, Equatable {
    public var reporter: UserSummary
    public var reason: String
    public var createdAt: Date

    public init(reporter: UserSummary, reason: String, createdAt: Date) {
        self.reporter = reporter
        self.reason = reason
        self.createdAt = createdAt
    }
}

/// What a moderator (or the server's operator) did.
public enum ModerationAction: String, Codable, Sendable, CaseIterable {
    /// The post's waiting reports were dismissed: it stays.
    case dismissReports = "dismiss_reports"
    /// The post was removed, with its likes, comments and reports.
    case removePost = "remove_post"
    /// The user was suspended: logged out everywhere, their posts and comments hidden, log-in refused.
    case suspend
    /// The user's suspension was lifted.
    case liftSuspension = "lift_suspension"
    /// The user was made a moderator (on the server's machine: `makestagram admin grant`).
    case grantModerator = "grant_moderator"
    /// The user stopped being a moderator.
    case revokeModerator = "revoke_moderator"
    /// Another server was suspended (``DomainBlockSeverity/suspend``).
    case suspendDomain = "suspend_domain"
    /// Another server was limited (``DomainBlockSeverity/limit``).
    case limitDomain = "limit_domain"
    /// A block of another server was lifted.
    case unblockDomain = "unblock_domain"
}

/// One entry of the moderation log, which every moderator can read and nobody can change.
public struct ModerationEntry: Codable, Sendable, Equatable {
    public var id: Int64
    public var createdAt: Date
    /// Who did it: a moderator's username, or nil for the server's operator (`makestagram admin`).
    public var moderator: String?
    /// One of ``ModerationAction`` (a string, so that a newer server's actions still decode).
    public var action: String
    /// The user acted on (a suspension, a grant) or the author of the post acted on.
    public var username: String?
    /// The post acted on, which may since be gone.
    public var postId: Int64?
    /// The moderator's reason, if they gave one.
    public var reason: String?
    /// The server acted on (a domain block).
    public var domain: String?

    public init(
        id: Int64, createdAt: Date, moderator: String?, action: String, username: String?, postId: Int64?,
        reason: String?, domain: String? = nil
    ) {
        self.id = id
        self.createdAt = createdAt
        self.moderator = moderator
        self.action = action
        self.username = username
        self.postId = postId
        self.reason = reason
        self.domain = domain
    }

    /// The action, if it is one this version knows.
    public var kind: ModerationAction? { ModerationAction(rawValue: action) }
}

/// The body of the moderators' actions: `POST /api/v1/moderation/reports/{post}/dismiss`,
/// `DELETE /api/v1/moderation/posts/{post}`, `POST /api/v1/moderation/users/{username}/suspension` and its `DELETE`.
public struct ModerationRequest: Codable, Sendable {
    /// Why, for the moderation log (at most ``Limits/moderationReasonLength`` characters); may be empty.
    public var reason: String?

    public init(reason: String? = nil) { self.reason = reason }
}

/// The body of `POST /api/v1/me/password/check`.
public struct CheckPasswordRequest: Codable, Sendable {
    public var password: String

    public init(password: String) { self.password = password }
}

/// The body of `POST /api/v1/me/delete`: the account is deleted for good.
public struct DeleteAccountRequest: Codable, Sendable {
    /// The account's password, so that a borrowed unlocked screen cannot delete it.
    public var password: String

    public init(password: String) { self.password = password }
}

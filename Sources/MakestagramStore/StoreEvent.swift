import Foundation
import MakestagramAPI

/// A change the store has committed, as live updates need it: absolute counts and the post's new version, never
/// deltas, so a receiver can apply it without reading the database.
public enum StoreEvent: Sendable, Equatable {
    /// Someone liked or unliked a post (only when the like actually changed).
    case likeChanged(LikeChange)
    /// A comment was added.
    case commentCreated(comment: Comment, commentCount: Int, version: Int64)
    /// A comment was deleted; `author` wrote it.
    case commentDeleted(commentID: Int64, postID: Int64, commentCount: Int, version: Int64, author: Int64)
    /// A post was created; `audience` is everyone whose home timeline it entered (the author and their followers).
    case postCreated(post: Post, audience: [Int64])
    /// A post's author hid its like count from others (`hidden`) or showed it again; `likeCount` is the count, for
    /// those who may see it.
    case likeCountHiddenChanged(postID: Int64, authorID: Int64, hidden: Bool, likeCount: Int, version: Int64)
    /// A post's author edited its caption.
    case captionEdited(postID: Int64, caption: String, editedAt: Date, version: Int64)
    /// A post's photo changed without its caption: it was given responsive variants, or its author changed its alt
    /// text. Its JSON must be rendered again, and screens showing it read it again (`post.photoChanged`).
    case imageChanged(postID: Int64, version: Int64)
    /// A post was deleted; `audience` is everyone whose home timeline it left.
    case postDeleted(postID: Int64, version: Int64, audience: [Int64])
    /// A session ended (log-out); connections authenticated by it must close.
    case sessionEnded(tokenHash: [UInt8])
    /// `follower` started (`following`) or stopped following `followee`: the follower's home timeline changed.
    case followChanged(follower: Int64, followee: Int64, following: Bool)
    /// `muter` muted (`muting`) or unmuted `muted`: the muter's home timeline changed, and the muted user's activity
    /// leaves (or comes back to) the muter's list. The muted user is not told.
    case muteChanged(muter: Int64, muted: Int64, muting: Bool)
    /// `blocker` blocked (`blocking`) or unblocked `blocked`. A block is published after the follows and follow
    /// requests between them (both ways) and the blocked user's comments on the blocker's posts were taken back, each
    /// as its own event, and their likes there too (on PostgreSQL, right after it, through the statement every like
    /// uses); from it on, neither sees the other anywhere, and open screens and caches drop what they showed of the
    /// other.
    case blockChanged(blocker: Int64, blocked: Int64, blocking: Bool)
    /// `requester` asked to follow the private account `target` (`pending`), or the request ended: approved (a
    /// ``followChanged(follower:followee:following:)`` follows), declined, withdrawn, or ended by a block.
    case followRequestChanged(requester: Int64, target: Int64, pending: Bool)
    /// A user made their account private, or public again: who may read their posts changed.
    case privacyChanged(user: Int64, isPrivate: Bool)
    /// A user changed their display name or avatar (or bio): everything that shows them must show `user`.
    case profileChanged(user: UserSummary)
    /// A user was suspended, or began to be deleted: their sessions end, their connections close (with
    /// ``LiveCloseCode/accountClosed``), and everything they made leaves every screen and cache.
    case userRemoved(user: Int64, username: String, status: AccountStatus)
    /// A suspension was lifted: the user's posts and comments are seen again (on screens once they load again).
    case userRestored(user: Int64, username: String)
    /// A user's unread activity count changed (someone liked, commented or followed, took it back, or the user read
    /// it): their open screens show the new count.
    case activityChanged(user: Int64, unreadCount: Int)
    /// Someone reported a post from another server and asked that its server be told too (with `reason`): federation
    /// sends that server a `Flag`. Nothing here changes.
    case reportForwarded(postID: Int64, reason: String)
    /// The moderators blocked another server (`severity`), or lifted its block (nil): federation refuses or limits
    /// it from now on, on every instance.
    case domainBlockChanged(domain: String, severity: DomainBlockSeverity?)
    /// Not a change but the news that changes may have been missed (a store shared by several instances could not
    /// read the change stream for longer than it keeps changes): every cache forgets everything, and every live
    /// client must load its screens again (close code ``LiveCloseCode/resync``).
    case changesMissed

    /// The post the event is about, if any.
    public var postID: Int64? {
        switch self {
        case .likeChanged(let change): change.postID
        case .commentCreated(let comment, _, _): comment.postId
        case .commentDeleted(_, let postID, _, _, _): postID
        case .postCreated(let post, _): post.id
        case .captionEdited(let postID, _, _, _): postID
        case .imageChanged(let postID, _): postID
        case .likeCountHiddenChanged(let postID, _, _, _, _): postID
        case .postDeleted(let postID, _, _): postID
        case .reportForwarded(let postID, _): postID
        case .sessionEnded, .followChanged, .muteChanged, .blockChanged, .followRequestChanged, .privacyChanged,
            .changesMissed, .profileChanged,
            .activityChanged, .domainBlockChanged,
            .userRemoved, .userRestored:
            nil
        }
    }
}

/// A committed like or unlike, with the post's state after it.
public struct LikeChange: Sendable, Equatable {
    public var postID: Int64
    /// Who liked or unliked.
    public var actor: UserSummary
    /// True for a like, false for an unlike.
    public var liked: Bool
    public var likeCount: Int
    /// The newest likers' usernames, as ``Post/likers``.
    public var likers: [String]
    public var version: Int64
    /// The post's author: the one who sees the count when it is hidden.
    public var authorID: Int64
    /// Whether the author hides the like count from others.
    public var countHidden: Bool

    public init(
        postID: Int64, actor: UserSummary, liked: Bool, likeCount: Int, likers: [String], version: Int64,
        authorID: Int64, countHidden: Bool = false
    ) {
        self.postID = postID
        self.actor = actor
        self.liked = liked
        self.likeCount = likeCount
        self.likers = likers
        self.version = version
        self.authorID = authorID
        self.countHidden = countHidden
    }

    /// The like state after the change as `viewer` may see it (the count left out when hidden from them); for the
    /// one who liked or unliked.
    public func state(for viewer: Int64) -> LikeState {
        LikeState(
            likeCount: countHidden && viewer != authorID ? nil : likeCount, viewerHasLiked: liked, likers: likers,
            version: version)
    }
}

/// Receives a store's committed changes.
///
/// A store calls ``publish(_:)`` after each transaction commits, in commit order, from the thread that committed:
/// implementations must return at once (queue the event, never wait).
public protocol StoreEventSink: Sendable {
    /// Takes one committed change.
    func publish(_ event: StoreEvent)
}

/// The usernames of a stored likers preview (space-separated, as both stores keep it on the post row), split on its
/// bytes (`String.split` was a tenth of a feed page's time in the profile), without the `hidden` ones
/// (``HiddenUsers``: suspended users and accounts being deleted).
package func likerNames(_ preview: String, hiding hidden: Set<String> = []) -> [String] {
    var names: [String] = []
    var preview = preview
    preview.withUTF8 { bytes in
        var start = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: " ") {
            if index > start { names.append(String(decoding: bytes[start..<index], as: UTF8.self)) }
            start = index + 1
        }
    }
    return hidden.isEmpty ? names : names.filter { !hidden.contains($0) }
}

/// Hands every committed change to several sinks, in order (the live hub's bus, and a doorbell of the consumers that
/// read the change log).
public struct FanOutSink: StoreEventSink {
    let sinks: [any StoreEventSink]

    public init(_ sinks: [any StoreEventSink]) {
        self.sinks = sinks
    }

    public func publish(_ event: StoreEvent) {
        for sink in sinks { sink.publish(event) }
    }
}

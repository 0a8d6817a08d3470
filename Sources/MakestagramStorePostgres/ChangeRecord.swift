import Foundation
import MakestagramAPI
import MakestagramStore

/// A committed change as it is stored in the `changes` table: small (a like is about 200 bytes), and without the
/// audience of a new or deleted post, which each reader resolves from the follows it can see (a post's author may
/// have a hundred thousand followers).
///
/// Likes are written by the `set_likes` function in SQL, so the field names here are also the keys it builds.
struct ChangeRecord: Codable, Sendable, Equatable {
    enum Kind: String, Codable, Sendable {
        case like, commentCreated, commentDeleted, postCreated, postDeleted, sessionEnded, followChanged, captionEdited,
            profileChanged, activityChanged, likeCountHidden, imageChanged, userRemoved, userRestored
    }

    var kind: Kind
    var post: Int64?
    /// The user who acted: liker, follower, or a deleted post's author.
    var actor: Int64?
    var username: String?
    var displayName: String?
    var avatarFile: String?
    /// Liked, or following.
    var on: Bool?
    /// The like or comment count after the change (for activity: the unread count).
    var count: Int?
    /// The likers preview, space-separated, as stored on the post.
    var likers: String?
    var version: Int64?
    var comment: Comment?
    var commentID: Int64?
    var created: Post?
    /// The followee of a follow change; the user whose unread activity count changed.
    var target: Int64?
    /// The ended session's token hash, in hexadecimal.
    var token: String?
    /// A liked post's author, and whether they hide its like count (likes; `likeCountHidden` has `on`).
    var owner: Int64?
    var hidden: Bool?
    /// An edited caption, and when it was edited (seconds since 1970).
    var caption: String?
    var at: Double?

    init(kind: Kind) {
        self.kind = kind
    }

    /// The record of an event the store committed (the audience of posts is left out: see ``audienceAuthor``).
    init(_ event: StoreEvent, author: Int64? = nil) {
        switch event {
        case .likeChanged(let change):
            self.init(kind: .like)
            post = change.postID
            actor = change.actor.id
            username = change.actor.username
            displayName = change.actor.displayName
            avatarFile = change.actor.avatarURL.map(MediaPath.fileName(ofURL:))
            on = change.liked
            count = change.likeCount
            likers = change.likers.joined(separator: " ")
            version = change.version
            owner = change.authorID
            hidden = change.countHidden
        case .commentCreated(let comment, let commentCount, let version):
            self.init(kind: .commentCreated)
            self.comment = comment
            count = commentCount
            self.version = version
        case .commentDeleted(let commentID, let postID, let commentCount, let version):
            self.init(kind: .commentDeleted)
            self.commentID = commentID
            post = postID
            count = commentCount
            self.version = version
        case .postCreated(let post, _):
            self.init(kind: .postCreated)
            created = post
        case .likeCountHiddenChanged(let postID, let authorID, let hidden, let likeCount, let version):
            self.init(kind: .likeCountHidden)
            post = postID
            owner = authorID
            on = hidden
            count = likeCount
            self.version = version
        case .captionEdited(let postID, let caption, let editedAt, let version):
            self.init(kind: .captionEdited)
            post = postID
            self.caption = caption
            at = editedAt.timeIntervalSince1970
            self.version = version
        case .imageChanged(let postID, let version):
            self.init(kind: .imageChanged)
            post = postID
            self.version = version
        case .postDeleted(let postID, let version, _):
            self.init(kind: .postDeleted)
            post = postID
            self.version = version
            actor = author
        case .sessionEnded(let tokenHash):
            self.init(kind: .sessionEnded)
            token = tokenHash.map { String(format: "%02x", $0) }.joined()
        case .followChanged(let follower, let followee, let following):
            self.init(kind: .followChanged)
            actor = follower
            target = followee
            on = following
        case .profileChanged(let user):
            self.init(kind: .profileChanged)
            actor = user.id
            username = user.username
            displayName = user.displayName
            avatarFile = user.avatarURL.map(MediaPath.fileName(ofURL:))
        case .activityChanged(let user, let unreadCount):
            self.init(kind: .activityChanged)
            target = user
            count = unreadCount
        case .userRemoved(let user, let name, let status):
            self.init(kind: .userRemoved)
            target = user
            username = name
            caption = status.rawValue
        case .userRestored(let user, let name):
            self.init(kind: .userRestored)
            target = user
            username = name
        case .changesMissed:
            preconditionFailure("changesMissed is never stored")
        }
    }

    /// For a new or deleted post, the author whose followers (and who) make its audience.
    var audienceAuthor: Int64? {
        switch kind {
        case .postCreated: created?.author.id
        case .postDeleted: actor
        default: nil
        }
    }

    /// The event, with `audience` for a new or deleted post and without the `hidden` users among a like's likers;
    /// nil for a record this version cannot read.
    func event(audience: [Int64], hiding hiddenNames: Set<String> = []) -> StoreEvent? {
        switch kind {
        case .like:
            guard let post, let actor, let username, let displayName, let on, let count, let version else { return nil }
            let summary = UserSummary(
                id: actor, username: username, displayName: displayName, avatarURL: avatarFile.map(MediaPath.url(for:)))
            let names = likerNames(likers ?? "", hiding: hiddenNames)
            guard let owner else { return nil }
            return .likeChanged(
                LikeChange(
                    postID: post, actor: summary, liked: on, likeCount: count, likers: names, version: version,
                    authorID: owner, countHidden: hidden ?? false))
        case .likeCountHidden:
            guard let post, let owner, let on, let count, let version else { return nil }
            return .likeCountHiddenChanged(
                postID: post, authorID: owner, hidden: on, likeCount: count, version: version)
        case .commentCreated:
            guard let comment, let count, let version else { return nil }
            return .commentCreated(comment: comment, commentCount: count, version: version)
        case .commentDeleted:
            guard let commentID, let post, let count, let version else { return nil }
            return .commentDeleted(commentID: commentID, postID: post, commentCount: count, version: version)
        case .postCreated:
            guard let created else { return nil }
            return .postCreated(post: created, audience: audience)
        case .profileChanged:
            guard let actor, let username, let displayName else { return nil }
            return .profileChanged(
                user: UserSummary(
                    id: actor, username: username, displayName: displayName,
                    avatarURL: avatarFile.map(MediaPath.url(for:))))
        case .captionEdited:
            guard let post, let caption, let at, let version else { return nil }
            return .captionEdited(
                postID: post, caption: caption, editedAt: Date(timeIntervalSince1970: at), version: version)
        case .postDeleted:
            guard let post, let version else { return nil }
            return .postDeleted(postID: post, version: version, audience: audience)
        case .imageChanged:
            guard let post, let version else { return nil }
            return .imageChanged(postID: post, version: version)
        case .sessionEnded:
            guard let token, let hash = Self.bytes(hex: token) else { return nil }
            return .sessionEnded(tokenHash: hash)
        case .followChanged:
            guard let actor, let target, let on else { return nil }
            return .followChanged(follower: actor, followee: target, following: on)
        case .activityChanged:
            guard let target, let count else { return nil }
            return .activityChanged(user: target, unreadCount: count)
        case .userRemoved:
            guard let target, let status = caption.flatMap(AccountStatus.init(rawValue:)) else { return nil }
            return .userRemoved(user: target, username: username ?? "", status: status)
        case .userRestored:
            guard let target else { return nil }
            return .userRestored(user: target, username: username ?? "")
        }
    }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        return bytes
    }

    func json() throws -> String {
        String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
    }
}

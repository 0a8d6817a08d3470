import Foundation
import MakestagramAPI
import MakestagramStore

/// A committed change as it is stored in the `changes` table: small (a like is about 200 bytes), and without the
/// audience of a new or deleted post, which each reader resolves from the follows it can see (a post's author may
/// have a hundred thousand followers).
///
/// This type is the record's one definition: Swift encodes and decodes it through ``CodingKeys``, the fast writer
/// (``flatJSON``) and reader (``init(flatJSON:)``) switch over every key, and the SQL that logs likes on PostgreSQL
/// builds its JSON from the same keys (``sqlObject(_:_:)``).
package struct ChangeRecord: Codable, Sendable, Equatable {
    package enum Kind: String, Codable, Sendable {
        case like, commentCreated, commentDeleted, postCreated, postDeleted, sessionEnded, followChanged, captionEdited,
            profileChanged, activityChanged, likeCountHidden, imageChanged, userRemoved, userRestored, muteChanged,
            blockChanged, followRequestChanged, privacyChanged, domainBlockChanged,
            reportForwarded
    }

    package var kind: Kind
    package var post: Int64?
    /// The user who acted: liker, follower, muter, or a deleted post's or comment's author.
    package var actor: Int64?
    package var username: String?
    package var displayName: String?
    package var avatarFile: String?
    /// Liked, or following.
    package var on: Bool?
    /// The like or comment count after the change (for activity: the unread count).
    package var count: Int?
    /// The likers preview, space-separated, as stored on the post.
    package var likers: String?
    package var version: Int64?
    package var comment: Comment?
    package var commentID: Int64?
    package var created: Post?
    /// The followee of a follow change, the muted user of a mute; the user whose unread activity count changed.
    package var target: Int64?
    /// The ended session's token hash, in hexadecimal.
    package var token: String?
    /// A liked post's author, and whether they hide its like count (likes; `likeCountHidden` has `on`).
    package var owner: Int64?
    package var hidden: Bool?
    /// An edited caption, and when it was edited (seconds since 1970).
    package var caption: String?
    package var at: Double?

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case kind, post, actor, username, displayName, avatarFile, on, count, likers, version, comment, commentID,
            created, target, token, owner, hidden, caption, at
    }

    package init(kind: Kind) {
        self.kind = kind
    }

    /// A SQL expression (`json_build_object`) that builds a record of `kind` from SQL expressions for its fields,
    /// named by their keys: what it builds is what ``init(payload:)`` reads.
    package static func sqlObject(_ kind: Kind, _ fields: KeyValuePairs<CodingKeys, String>) -> String {
        var arguments = ["'\(CodingKeys.kind.rawValue)'", "'\(kind.rawValue)'"]
        for (key, expression) in fields {
            precondition(key != .kind, "the kind is given once")
            arguments.append("'\(key.rawValue)'")
            arguments.append(expression)
        }
        return "json_build_object(" + arguments.joined(separator: ", ") + ")"
    }

    /// The record of an event the store committed (the audience of posts is left out: see ``audienceAuthor``).
    package init(_ event: StoreEvent, author: Int64? = nil) {
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
        case .commentDeleted(let commentID, let postID, let commentCount, let version, let author):
            self.init(kind: .commentDeleted)
            self.commentID = commentID
            actor = author
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
        case .muteChanged(let muter, let muted, let muting):
            self.init(kind: .muteChanged)
            actor = muter
            target = muted
            on = muting
        case .blockChanged(let blocker, let blocked, let blocking):
            self.init(kind: .blockChanged)
            actor = blocker
            target = blocked
            on = blocking
        case .followRequestChanged(let requester, let target, let pending):
            self.init(kind: .followRequestChanged)
            actor = requester
            self.target = target
            on = pending
        case .privacyChanged(let user, let isPrivate):
            self.init(kind: .privacyChanged)
            actor = user
            on = isPrivate
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
        case .domainBlockChanged(let domain, let severity):
            // The domain as the username, and the severity as the caption (none: lifted).
            self.init(kind: .domainBlockChanged)
            username = domain
            caption = severity?.rawValue
        case .reportForwarded(let postID, let reason):
            // The reason as the caption.
            self.init(kind: .reportForwarded)
            post = postID
            caption = reason
        case .changesMissed:
            preconditionFailure("changesMissed is never stored")
        }
    }

    /// For a new or deleted post, the author whose followers (and who) make its audience.
    package var audienceAuthor: Int64? {
        switch kind {
        case .postCreated: created?.author.id
        case .postDeleted: actor
        default: nil
        }
    }

    /// The event, with `audience` for a new or deleted post and without the `hidden` users among a like's likers;
    /// nil for a record this version cannot read.
    package func event(audience: [Int64], hiding hiddenNames: Set<String> = []) -> StoreEvent? {
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
            return .commentDeleted(
                commentID: commentID, postID: post, commentCount: count, version: version, author: actor ?? 0)
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
        case .muteChanged:
            guard let actor, let target, let on else { return nil }
            return .muteChanged(muter: actor, muted: target, muting: on)
        case .blockChanged:
            guard let actor, let target, let on else { return nil }
            return .blockChanged(blocker: actor, blocked: target, blocking: on)
        case .followRequestChanged:
            guard let actor, let target, let on else { return nil }
            return .followRequestChanged(requester: actor, target: target, pending: on)
        case .privacyChanged:
            guard let actor, let on else { return nil }
            return .privacyChanged(user: actor, isPrivate: on)
        case .activityChanged:
            guard let target, let count else { return nil }
            return .activityChanged(user: target, unreadCount: count)
        case .userRemoved:
            guard let target, let status = caption.flatMap(AccountStatus.init(rawValue:)) else { return nil }
            return .userRemoved(user: target, username: username ?? "", status: status)
        case .userRestored:
            guard let target else { return nil }
            return .userRestored(user: target, username: username ?? "")
        case .reportForwarded:
            guard let post, let caption else { return nil }
            return .reportForwarded(postID: post, reason: caption)
        case .domainBlockChanged:
            guard let username else { return nil }
            return .domainBlockChanged(domain: username, severity: caption.flatMap(DomainBlockSeverity.init(rawValue:)))
        }
    }

    package static func bytes(hex: String) -> [UInt8]? {
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

    /// The record a logged payload holds (read without `JSONDecoder` when it is flat), or nil when it cannot be read.
    package init?(payload: String) {
        if let flat = ChangeRecord(flatJSON: payload) {
            self = flat
            return
        }
        guard let decoded = try? JSONDecoder().decode(ChangeRecord.self, from: Data(payload.utf8)) else { return nil }
        self = decoded
    }

    /// The record as JSON: written by ``flatJSON`` when it is flat (a like's record took about 6 µs through
    /// `JSONEncoder`, on the writer's thread, inside the commit), by `JSONEncoder` when it holds a comment or a post.
    package func json() throws -> String {
        if let flat = flatJSON { return flat }
        return String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
    }
}

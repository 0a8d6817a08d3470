import Foundation
import Hummingbird
import MakestagramAPI
import MakestagramStore

/// Turns the store's users, posts, comments and activity into Mastodon's entities, for one request (whose origin
/// makes the absolute URLs Mastodon's entities carry).
struct MastodonMapper<S: Store>: Sendable {
    let store: S
    let viewer: Int64
    let origin: String

    init(store: S, viewer: Int64, origin: String) {
        self.store = store
        self.viewer = viewer
        self.origin = origin
    }

    func absolute(_ path: String?) -> String? {
        path.map { $0.hasPrefix("/") ? origin + $0 : $0 }
    }

    func account(_ profile: UserProfile, withSource: Bool = false) -> Mastodon.Account {
        let avatar = absolute(profile.avatarLargeURL ?? profile.avatarURL) ?? origin + "/app/icon.svg"
        return Mastodon.Account(
            // Someone on another server is `user@host` here: Mastodon's `username` is the part before the host.
            id: String(profile.id), username: String(profile.username.prefix { $0 != "@" }), acct: profile.username,
            displayName: profile.displayName, locked: profile.isPrivate, createdAt: profile.createdAt,
            note: Mastodon.html(profile.bio),
            url: origin + "/u/" + profile.username, uri: origin + "/u/" + profile.username, avatar: avatar,
            avatarStatic: avatar, header: origin + "/app/icon.svg", headerStatic: origin + "/app/icon.svg",
            followersCount: profile.followerCount, followingCount: profile.followingCount,
            statusesCount: profile.postCount, lastStatusAt: nil,
            source: withSource ? OrNull(Mastodon.Account.Source(note: profile.bio)) : nil)
    }

    /// The profiles of `users` (each read once), as the viewer sees them; users no longer seen are left out.
    func profiles(_ users: [Int64]) async throws -> [Int64: UserProfile] {
        var profiles: [Int64: UserProfile] = [:]
        for id in Set(users) {
            if let profile = try await store.profile(id: id, viewer: viewer) { profiles[id] = profile }
        }
        return profiles
    }

    func accounts(_ users: [UserSummary]) async throws -> [Mastodon.Account] {
        let profiles = try await profiles(users.map(\.id))
        return users.compactMap { profiles[$0.id].map { account($0) } }
    }

    /// A photo as an attachment; `id` is its upload's (``PostedMediaID`` once posted).
    func attachment(id: String, image: PostImage) -> Mastodon.MediaAttachment {
        Mastodon.MediaAttachment(
            id: id, url: OrNull(absolute(image.full.url)), previewUrl: OrNull(absolute(image.thumb.url)),
            meta: OrNull(
                Mastodon.MediaAttachment.Meta(
                    original: .init(width: image.width, height: image.height),
                    small: .init(width: image.thumb.width, height: image.thumb.height))),
            description: OrNull(image.altText))
    }

    func status(_ post: Post, author: UserProfile) -> Mastodon.Status {
        Mastodon.Status(
            id: String(post.id), createdAt: post.createdAt, inReplyToId: nil, inReplyToAccountId: nil,
            // A private account's posts are for its followers only.
            visibility: author.isPrivate ? "private" : "public", uri: origin + "/p/\(post.id)",
            url: origin + "/p/\(post.id)", repliesCount: post.commentCount,
            // A count the author hides from the reader is 0 here, as the native API leaves it out: Mastodon's entity
            // has no way to say "hidden".
            favouritesCount: post.seen(by: viewer).likeCount ?? 0, editedAt: OrNull(post.editedAt),
            favourited: post.viewerHasLiked,
            content: Mastodon.html(post.caption), text: OrNull(post.caption), account: account(author),
            mediaAttachments: post.photos.enumerated().map { index, image in
                attachment(id: PostedMediaID(post: post.id, index: index).description, image: image)
            },
            tags: Hashtags.of(post.caption).map { Mastodon.Tag(name: $0, url: origin + "/t/" + $0) })
    }

    /// A comment as a reply to its post's status.
    func status(_ comment: Comment, postAuthor: Int64, author: UserProfile) -> Mastodon.Status {
        Mastodon.Status(
            id: "c\(comment.id)", createdAt: comment.createdAt, inReplyToId: OrNull(String(comment.postId)),
            inReplyToAccountId: OrNull(String(postAuthor)), uri: origin + "/p/\(comment.postId)#c\(comment.id)",
            url: origin + "/p/\(comment.postId)", repliesCount: 0, favouritesCount: 0, editedAt: nil,
            favourited: false, content: Mastodon.html(comment.text), text: OrNull(comment.text),
            account: account(author), mediaAttachments: [], tags: [])
    }

    func statuses(_ posts: [Post]) async throws -> [Mastodon.Status] {
        let profiles = try await profiles(posts.map(\.author.id))
        // A post from another server is known by its ActivityPub id, and links to its page there.
        let remote = try await store.remotePostURIs(
            of: posts.filter { Limits.isRemoteUsername($0.author.username) }.map(\.id))
        let mentioned = try await mentions(in: posts.map(\.caption))
        return posts.compactMap { post in
            profiles[post.author.id].map {
                var status = status(post, author: $0)
                if let original = remote[post.id] {
                    status.uri = original.uri
                    status.url = original.url ?? original.uri
                }
                status.mentions = (Mentions.of(post.caption) + Mentions.remote(of: post.caption)).compactMap {
                    mentioned[$0.lowercased()]
                }
                return status
            }
        }
    }

    /// The people `texts` name who are known here and whom the viewer may see, by lower-cased name (`alice`,
    /// `bob@example.social`), each looked up once.
    func mentions(in texts: [String]) async throws -> [String: Mastodon.Mention] {
        var names = Set<String>()
        for text in texts where text.contains("@") {
            names.formUnion((Mentions.of(text) + Mentions.remote(of: text)).map { $0.lowercased() })
        }
        var found: [String: Mastodon.Mention] = [:]
        for name in names.prefix(50) {
            guard let profile = try await store.profile(username: name, viewer: viewer) else { continue }
            found[name] = Mastodon.Mention(
                id: String(profile.id), username: String(profile.username.split(separator: "@").first ?? ""),
                url: origin + "/u/" + profile.username, acct: profile.username)
        }
        return found
    }

    func relationship(_ id: Int64) async throws -> Mastodon.Relationship {
        let following = try await store.followed(by: viewer, among: [id]).contains(id)
        let followedBy = try await store.followed(by: id, among: [viewer]).contains(viewer)
        let muting = try await store.muted(by: viewer, among: [id]).contains(id)
        let blocks = try await store.blockRelations(viewer: viewer, among: [id])
        let profile = try await store.profile(id: id, viewer: viewer)
        let requested = profile?.viewerRequested ?? false
        var domainBlocking = false
        if let host = profile.flatMap({ DomainName.host(ofUsername: $0.username) }) {
            domainBlocking = try await store.domainBlocks(viewer: viewer).contains {
                DomainName.covers($0, host: host)
            }
        }
        return Mastodon.Relationship(
            id: String(id), following: following, showingReblogs: following, followedBy: followedBy,
            blocking: blocks.blocking.contains(id), blockedBy: blocks.blockedBy.contains(id), muting: muting,
            mutingNotifications: muting, requested: requested, domainBlocking: domainBlocking)
    }
}

extension MastodonMapper {
    /// The notification an activity group is to a Mastodon client (nil when its actor is gone), with its newest
    /// action's ID as the notification's, on the list and on the streams alike. `profiles` holds the groups' first
    /// actors.
    func notification(_ group: ActivityGroup, profiles: [Int64: UserProfile]) async throws -> Mastodon.Notification? {
        guard let actor = group.actors.first, let profile = profiles[actor.id] else { return nil }
        var status: Mastodon.Status?
        if let postID = group.post?.id, let post = try await store.post(id: postID, viewer: viewer) {
            if let comment = group.comment {
                // A comment on the reader's post, or one that names them: the reply itself, as every comment shows.
                let reply = Comment(
                    id: comment.id, postId: post.id, author: actor, text: comment.text, createdAt: group.createdAt)
                status = self.status(reply, postAuthor: post.author.id, author: profile)
            } else {
                status = try await statuses([post]).first
            }
        }
        let type =
            switch group.kind {
            case .like: "favourite"
            // A reply to the reader's post, or a status (a caption or a reply) that names them.
            case .comment, .mention: "mention"
            case .follow: "follow"
            case .followRequest: "follow_request"
            }
        return Mastodon.Notification(
            id: String(group.latestId), type: type, createdAt: group.createdAt, groupKey: group.id,
            account: account(profile), status: OrNull(status))
    }
}

/// The ID of a posted photo as an attachment: its post's ID for the first photo (as before albums, so that a status's
/// first attachment has the status's ID), `<post>-<n>` for the n-th (from 2) of an album.
struct PostedMediaID: Equatable, CustomStringConvertible {
    var post: Int64
    /// The photo's index in the post, from 0.
    var index: Int

    init(post: Int64, index: Int) {
        self.post = post
        self.index = index
    }

    /// Reads an ID written by ``description``; nil for anything else.
    init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let post = parts.first.flatMap({ Int64($0) }), post > 0 else { return nil }
        switch parts.count {
        case 1: self.init(post: post, index: 0)
        case 2:
            guard let n = Int(parts[1]), n >= 2, n <= Post.photoLimitCeiling, String(n) == parts[1] else { return nil }
            self.init(post: post, index: n - 1)
        default: return nil
        }
    }

    var description: String { index == 0 ? String(post) : "\(post)-\(index + 1)" }
}

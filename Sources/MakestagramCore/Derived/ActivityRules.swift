import Foundation
import MakestagramAPI
import MakestagramStore

/// What each change does to activity — the one place that says who hears of what: a like, a comment or a follow
/// notifies the one it was done to, a mention in a caption or a comment notifies the one it names, never oneself, and
/// only if they may open the post it is in (the stores leave out a private account's post's mention of someone who does
/// not follow it); undoing the cause (an unlike, a deleted comment or post, an unfollow, a caption edited) withdraws
/// it; a suspended or deleted account's activity leaves everyone's list, and a lifted suspension brings it back, as
/// read; a muted user's activity leaves the muter's list (the stores add none while the mute lasts), and an unmute
/// brings it back, as read; a follow request waits in the private account's list until answered; between a blocker and
/// the one they block nothing is heard either way, and the block withdraws what was. People of other servers hear
/// nothing here (their own server tells them, through federation; the stores add nothing for them).
///
/// The rules are plain Swift, the same for every store: the stores only add, remove and count rows.
package struct ActivityRules<S: ChangeLogStore>: Sendable {
    let store: S

    package init(store: S) {
        self.store = store
    }

    /// The writes that `changes` cause, in their order.
    package func writes(for changes: [LoggedChange]) async throws -> [ActivityWrite] {
        // What the changes only name, read once for the whole batch.
        var posts = Set<Int64>()
        var names = Set<String>()
        for change in changes {
            switch change.event {
            case .commentCreated(let comment, _, _):
                posts.insert(comment.postId)
                names.formUnion(Mentions.of(comment.text))
            case .captionEdited(let postID, let caption, _, _):
                posts.insert(postID)
                names.formUnion(Mentions.of(caption))
            case .postCreated(let post, _):
                names.formUnion(Mentions.of(post.caption))
            default:
                break
            }
        }
        let authors = try await store.postAuthors(Array(posts))
        let users = try await store.userIDs(usernames: names)
        var writes: [ActivityWrite] = []
        for change in changes {
            switch change.event {
            case .likeChanged(let like):
                let source = "like:\(like.postID):\(like.actor.id)"
                guard like.actor.id != like.authorID else { continue }
                if like.liked {
                    writes.append(
                        .add(
                            ActivityEntry(
                                recipient: like.authorID, actor: like.actor.id, kind: .like, post: like.postID,
                                source: source, group: "like:\(like.postID):\(Self.day(change.at))",
                                createdAt: change.at)))
                } else {
                    writes.append(.remove(source: source))
                }
            case .commentCreated(let comment, _, _):
                guard let author = authors[comment.postId] else { continue }
                writes += Self.entries(for: comment, postAuthor: author, users: users, at: change.at).map(
                    ActivityWrite.add)
            case .commentDeleted(let commentID, _, _, _, _):
                writes.append(.removeComment(commentID))
            case .postCreated(let post, _):
                writes += Self.mentions(
                    in: post.caption, post: post.id, by: post.author.id, users: users, at: change.at
                )
                .map(ActivityWrite.add)
            case .captionEdited(let postID, let caption, _, _):
                guard let author = authors[postID] else { continue }
                let mentions = Self.mentions(in: caption, post: postID, by: author, users: users, at: change.at)
                writes.append(.keepPostMentions(post: postID, sources: Set(mentions.map(\.source))))
                writes += mentions.map(ActivityWrite.add)
            case .postDeleted(let postID, _, _):
                writes.append(.removePost(postID))
            case .followChanged(let follower, let followee, let following):
                let source = "follow:\(follower):\(followee)"
                guard follower != followee else { continue }
                if following {
                    writes.append(
                        .add(
                            ActivityEntry(
                                recipient: followee, actor: follower, kind: .follow, source: source,
                                group: "follow:\(Self.day(change.at))", createdAt: change.at)))
                } else {
                    writes.append(.remove(source: source))
                }
            case .userRemoved(let user, _, _):
                writes.append(.removeActor(user))
            case .userRestored(let user, _):
                writes += try await restored(user).map(ActivityWrite.add)
            case .muteChanged(let muter, let muted, let muting):
                // Entries from a muted actor are never added (the stores leave them out); these are those of before.
                if muting {
                    writes.append(.removeActor(muted, for: muter))
                } else {
                    writes += try await restored(muted).filter { $0.recipient == muter }.map(ActivityWrite.add)
                }
            case .followRequestChanged(let requester, let target, let pending):
                // One line per request, to approve or decline; it goes when answered (an approval is then a follow).
                let source = "request:\(requester):\(target)"
                if pending {
                    writes.append(
                        .add(
                            ActivityEntry(
                                recipient: target, actor: requester, kind: .followRequest, source: source,
                                group: source, createdAt: change.at)))
                } else {
                    writes.append(.remove(source: source))
                }
            case .blockChanged(let blocker, let blocked, let blocking):
                // Neither hears of the other while the block lasts (the stores add no entry between them); an
                // unblock restores nothing.
                if blocking {
                    writes.append(.removeActor(blocked, for: blocker))
                    writes.append(.removeActor(blocker, for: blocked))
                }
            case .sessionEnded, .profileChanged, .imageChanged, .likeCountHiddenChanged, .activityChanged,
                .privacyChanged, .domainBlockChanged, .reportForwarded, .changesMissed:
                continue
            }
        }
        return writes
    }

    /// What a comment causes: the post's author hears of it (unless they wrote it), and everyone it mentions but its
    /// writer and the post's author (who hears of it already).
    static func entries(for comment: Comment, postAuthor: Int64, users: [String: Int64], at: Date) -> [ActivityEntry] {
        var entries: [ActivityEntry] = []
        let writer = comment.author.id
        if postAuthor != writer {
            let source = "comment:\(comment.id)"
            entries.append(
                ActivityEntry(
                    recipient: postAuthor, actor: writer, kind: .comment, post: comment.postId, comment: comment.id,
                    source: source, group: source, createdAt: at))
        }
        for name in Mentions.of(comment.text) {
            guard let user = users[name], user != writer, user != postAuthor else { continue }
            let source = "mention:comment:\(comment.id):\(user)"
            entries.append(
                ActivityEntry(
                    recipient: user, actor: writer, kind: .mention, post: comment.postId, comment: comment.id,
                    source: source, group: source, createdAt: at))
        }
        return entries
    }

    /// Everyone a caption mentions but its author.
    static func mentions(in caption: String, post: Int64, by author: Int64, users: [String: Int64], at: Date)
        -> [ActivityEntry]
    {
        Mentions.of(caption).compactMap { name in
            guard let user = users[name], user != author else { return nil }
            let source = "mention:post:\(post):\(user)"
            return ActivityEntry(
                recipient: user, actor: author, kind: .mention, post: post, source: source, group: source,
                createdAt: at)
        }
    }

    /// What the user did that still stands, as entries already read (it is old news): a lifted suspension, or an
    /// unmute for one recipient.
    func restored(_ user: Int64) async throws -> [ActivityEntry] {
        let actions = try await store.actions(of: user)
        var names = Set<String>()
        for (comment, _) in actions.comments { names.formUnion(Mentions.of(comment.text)) }
        for post in actions.posts { names.formUnion(Mentions.of(post.caption)) }
        let users = try await store.userIDs(usernames: names)
        var entries: [ActivityEntry] = []
        for like in actions.likes where like.author != user {
            entries.append(
                ActivityEntry(
                    recipient: like.author, actor: user, kind: .like, post: like.post,
                    source: "like:\(like.post):\(user)", group: "like:\(like.post):\(Self.day(like.at))",
                    createdAt: like.at))
        }
        for (comment, author) in actions.comments {
            entries += Self.entries(for: comment, postAuthor: author, users: users, at: comment.createdAt)
        }
        for follow in actions.follows {
            entries.append(
                ActivityEntry(
                    recipient: follow.followee, actor: user, kind: .follow, source: "follow:\(user):\(follow.followee)",
                    group: "follow:\(Self.day(follow.at))", createdAt: follow.at))
        }
        for post in actions.posts {
            entries += Self.mentions(in: post.caption, post: post.id, by: user, users: users, at: post.at)
        }
        return entries.map { entry in
            var entry = entry
            entry.unread = false
            return entry
        }
    }

    /// The day (since 1970, UTC) likes and follows are grouped by.
    static func day(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }
}

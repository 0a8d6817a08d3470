import MakestagramAPI

/// What a store keeps in memory from the database — sessions looked up, the tops of home timelines, posts' versions —
/// and the one place that decides what each committed change does to it.
///
/// Every change reaches ``apply(_:)`` as the ``StoreEvent`` it is published as: on SQLite when its transaction
/// commits, before it is answered; on PostgreSQL likewise on the instance that made it, and on every instance (that
/// one too) when the change stream brings it. Applying is idempotent, and a like carries the post's version so that
/// an older one never undoes a newer one, so the same change arriving twice, or two changes arriving in different
/// orders on different instances, leave every cache true. A feature that changes something kept here publishes an
/// event and adds its case below; nothing patches a cache by hand.
package final class StoreCaches: Sendable {
    /// Sessions recently looked up.
    package let sessions = SessionCache(capacity: 100_000)
    /// The tops of home timelines recently read, and the versions of their posts.
    package let timelines = TimelineCache()

    package init() {}

    /// Applies a committed change.
    package func apply(_ event: StoreEvent) {
        switch event {
        case .likeChanged(let change):
            timelines.likeChanged(change.postID, viewer: change.actor.id, liked: change.liked, version: change.version)
        case .commentCreated(let comment, _, _):
            timelines.postChanged(comment.postId)
        case .commentDeleted(_, let postID, _, _):
            timelines.postChanged(postID)
        case .postCreated(let post, let audience):
            timelines.postCreated(post.id, audience: audience)
        case .postDeleted(let postID, _, let audience):
            timelines.postDeleted(postID, audience: audience)
        case .sessionEnded(let tokenHash):
            if let key = SessionKey(tokenHash) { sessions.remove(CollectionOfOne(key)) }
        case .followChanged(let follower, _, _):
            timelines.followsChanged(viewer: follower)
        }
    }

    /// Forgets everything: changes may have been missed (the change stream was interrupted).
    package func removeAll() {
        sessions.removeAll()
        timelines.removeAll()
    }
}

import Foundation
import MakestagramAPI
import Synchronization

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
    /// The users nobody may see; loaded by the store when it opens.
    package let hiddenUsers = HiddenUsers()
    /// Whom each user recently seen blocks or is blocked by.
    package let blockPartners = BlockPartners()
    /// The private accounts; loaded by the store when it opens.
    package let privateUsers = PrivateUsers()
    /// The servers the moderators block; loaded by the store when it opens.
    package let blockedDomains = BlockedDomains()
    /// The key of the signed URLs of private accounts' photos, read from the database by the store when it opens
    /// (until then, one of this process's own).
    private let signing = Mutex(MediaSigning(key: MediaSigning.newKey()))

    /// Until when (nanoseconds of the continuous clock since ``start``) the caches may answer: a store whose changes
    /// come from elsewhere (PostgreSQL's change stream) renews it on every read of the stream, so that an instance
    /// cut off from the stream stops answering from memory within a second instead of serving, say, a session that
    /// ended on another instance. `Int64.max`: always (SQLite, where every change is this process's own).
    private let trustedUntil = Atomic<Int64>(.max)
    private let renderEpochValue = Atomic<UInt64>(0)
    private let start = ContinuousClock.now

    package init() {}

    /// A number that grows whenever something posts show changes without their version growing (a user's name or
    /// avatar, shown on their posts and comments), or when changes may have been missed: JSON rendered at an older
    /// epoch is out of date.
    package var renderEpoch: UInt64 {
        // The day is part of it: JSON carries signed URLs (``MediaSigning``), good for days counted from the day
        // they were made, so no JSON is kept past the day it was rendered on. The value grows with both.
        renderEpochValue.load(ordering: .acquiring) &* 1_000_003
            &+ UInt64(max(0, MediaSigning.day(Date())) % 1_000_003)
    }

    /// The signer of private accounts' photo URLs.
    package var mediaSigning: MediaSigning {
        signing.withLock { $0 }
    }

    /// Uses the key the database holds (shared by every instance).
    package func useMediaKey(_ key: [UInt8]) {
        signing.withLock { $0 = MediaSigning(key: Data(key)) }
    }

    /// Whether lookups may be answered from memory now.
    package var isTrusted: Bool {
        let deadline = trustedUntil.load(ordering: .relaxed)
        return deadline == .max || nanoseconds(since: start) < deadline
    }

    /// Trusts the caches for `duration` from now (the change stream was just read up to date).
    package func trust(for duration: Duration) {
        let until =
            nanoseconds(since: start) + Int64(duration.components.seconds) * 1_000_000_000
            + duration.components.attoseconds / 1_000_000_000
        trustedUntil.store(until, ordering: .relaxed)
    }

    /// Stops answering from memory until ``trust(for:)``.
    package func distrust() {
        trustedUntil.store(0, ordering: .relaxed)
    }

    private func nanoseconds(since start: ContinuousClock.Instant) -> Int64 {
        let elapsed = ContinuousClock.now - start
        return elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
    }

    /// Applies a committed change.
    package func apply(_ event: StoreEvent) {
        switch event {
        case .likeChanged(let change):
            timelines.likeChanged(change.postID, viewer: change.actor.id, liked: change.liked, version: change.version)
        case .commentCreated(let comment, _, _):
            timelines.postChanged(comment.postId)
        case .commentDeleted(_, let postID, _, _, _), .captionEdited(let postID, _, _, _),
            .likeCountHiddenChanged(let postID, _, _, _, _):
            timelines.postChanged(postID)
        case .imageChanged(let postID, _):
            timelines.postChanged(postID)
            // New renditions may be a private account's files.
            if !privateUsers.summary.isEmpty { privateUsers.changed() }
        case .postCreated(let post, let audience):
            timelines.postCreated(post.id, audience: audience)
            if privateUsers.contains(post.author.id) { privateUsers.changed() }
        case .postDeleted(let postID, _, let audience):
            timelines.postDeleted(postID, audience: audience)
        case .sessionEnded(let tokenHash):
            if let key = SessionKey(tokenHash) { sessions.remove(CollectionOfOne(key)) }
        case .followChanged(let follower, _, _), .muteChanged(let follower, _, _):
            timelines.followsChanged(viewer: follower)
        case .blockChanged(let blocker, let blocked, _):
            // Their follows went each as its own change; what each may see of the other changed.
            blockPartners.forget([blocker, blocked])
            timelines.followsChanged(viewer: blocker)
            timelines.followsChanged(viewer: blocked)
        case .profileChanged(let user):
            sessions.remove { $0.user.id == user.id }
            renderEpochValue.add(1, ordering: .releasing)
        case .userRemoved(let user, _, _), .userRestored(let user, _):
            // Rare (a moderator's action, an account deleted), and the user's posts may sit in any timeline window
            // and their comments and likes inside any rendered post: forget the windows and render posts again.
            if case .userRemoved(_, let username, _) = event {
                hiddenUsers.hide(user, username: username)
            } else {
                hiddenUsers.show(user)
            }
            sessions.remove { $0.user.id == user }
            timelines.removeAll()
            renderEpochValue.add(1, ordering: .releasing)
        case .followRequestChanged:
            // No cache holds requests.
            return
        case .privacyChanged(let user, let isPrivate):
            // Who may read the posts is asked of the database at every read (home timelines hold only followers'
            // rows, and an accepted follow is its own change); the media routes learn which files to guard. The
            // posts' photo URLs changed (signed, or plain again) with a new version each: rare, so the timeline
            // windows holding their versions go, and rendered posts are rendered again.
            privateUsers.set(user, isPrivate: isPrivate)
            timelines.removeAll()
            renderEpochValue.add(1, ordering: .releasing)
        case .activityChanged:
            // No cache holds activity: every page and count is read from the store.
            return
        case .reportForwarded:
            return
        case .domainBlockChanged(let domain, let severity):
            // What the server's people made here leaves as their own changes (removals, privacy).
            blockedDomains.set(domain, severity)
        case .changesMissed:
            removeAll()
        }
    }

    /// Forgets everything: changes may have been missed (the change stream was interrupted).
    package func removeAll() {
        sessions.removeAll()
        timelines.removeAll()
        blockPartners.removeAll()
        renderEpochValue.add(1, ordering: .releasing)
    }
}

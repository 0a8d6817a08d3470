import Foundation
import MakestagramAPI
import MakestagramStore

/// How people stand to each other: following and unfollowing (a request, for a private account, that its owner
/// answers), muting and unmuting, blocking and unblocking.
package struct Relationships<S: Store>: Sendable {
    let core: Core<S>
    /// The part of the store this use case writes and reads.
    var store: some PeopleStoring { core.store }

    /// People whose username or display name contains `query`, ranked for `viewer`; a handle of someone on another
    /// server (`@bob@example.social`, or their URL) is looked up there first and comes first.
    package func search(_ query: String, viewer: Int64, limit: Int) async throws -> [UserSummary] {
        var found: [UserSummary] = []
        if RemotePeople.isHandle(query), let username = await core.remote.resolve(query),
            let profile = try await store.profile(username: username, viewer: viewer)
        {
            found.append(profile.summary)
        }
        let name = query.hasPrefix("@") ? String(query.dropFirst()) : query
        for user in try await store.searchUsers(query: name, viewer: viewer, limit: limit)
        where !found.contains(where: { $0.id == user.id }) {
            found.append(user)
        }
        return Array(found.prefix(limit))
    }

    /// Makes `user` follow `username`, or stop; answers the followee's follower count and whether the user follows.
    /// Someone on another server (`user@host`) not known here yet is looked up there first.
    package func follow(_ username: String, by user: Int64, following: Bool) async throws -> FollowState {
        try core.protection.take(.follows, user: user)
        do {
            if following, Limits.isRemoteUsername(username),
                try await store.profile(username: username, viewer: user) == nil
            {
                _ = await core.remote.resolve(username)
            }
            return try await store.setFollow(viewer: user, username: username, following: following)
        } catch StoreError.cannotFollowSelf {
            throw UseCaseError.conflict(.cannotFollowSelf, "You cannot follow yourself.")
        }
    }

    /// Makes `user` mute `username`, or stop: the muted user's posts leave the user's home feed and their activity
    /// the user's activity list (an unmute brings both back); nothing else changes, and they are not told. Counted
    /// with follows.
    package func mute(_ username: String, by user: Int64, muting: Bool) async throws -> MuteState {
        try core.protection.take(.follows, user: user)
        do {
            return MuteState(viewerMutes: try await store.setMute(viewer: user, username: username, muting: muting))
        } catch StoreError.cannotMuteSelf {
            throw UseCaseError.conflict(.cannotMuteSelf, "You cannot mute yourself.")
        }
    }

    /// Approves `username`'s request to follow `user` (they follow from now on) or declines it (they are not told).
    package func answerRequest(from username: String, to user: Int64, approve: Bool) async throws {
        try core.protection.take(.follows, user: user)
        try await store.answerFollowRequest(viewer: user, username: username, approve: approve)
    }

    /// Stops `username` following `user`, or waiting to: a removal, quieter than a block (they are not told, and
    /// may ask again; nothing else between them changes). Someone on another server has their server told, so that
    /// it stops counting the follow (a `Reject` of their `Follow`). Removing someone who does not follow changes
    /// nothing. Counted with follows.
    package func removeFollower(_ username: String, from user: Int64) async throws {
        try core.protection.take(.follows, user: user)
        guard let owner = try await store.profile(id: user, viewer: user),
            let follower = try await store.profile(username: username, viewer: user)
        else { throw StoreError.notFound("user") }
        guard follower.id != user else {
            throw UseCaseError.conflict(.cannotFollowSelf, "You do not follow yourself.")
        }
        do {
            // The follower's own unfollow, made for them: one way to end a follow, whoever ends it.
            _ = try await store.setFollow(viewer: follower.id, username: owner.username, following: false)
        } catch StoreError.notFound {
            // They cannot see the user (a block stands between them): they follow nobody here to remove.
        }
    }

    /// Makes `user` block `username`, or stop. A block ends the follows between them both ways and takes back the
    /// blocked user's likes and comments on the user's posts; from then on neither sees, follows or reaches the
    /// other (``Visibility``), on every screen and instance at once; they are not told. An unblock restores
    /// nothing. Counted with follows.
    package func block(_ username: String, by user: Int64, blocking: Bool) async throws -> BlockState {
        try core.protection.take(.follows, user: user)
        do {
            return BlockState(
                viewerBlocks: try await store.setBlock(viewer: user, username: username, blocking: blocking))
        } catch StoreError.cannotBlockSelf {
            throw UseCaseError.conflict(.cannotBlockSelf, "You cannot block yourself.")
        }
    }

    /// Makes `user` block the server `raw` names and its subdomains, or stop, and answers the servers they block. A
    /// block blocks each of its people known here (``block(_:by:blocking:)``), and each met later as they are met;
    /// lifting it lifts those blocks, and no block made one by one. Counted with follows.
    package func blockDomain(_ raw: String, by user: Int64, blocking: Bool) async throws -> [String] {
        try core.protection.take(.follows, user: user)
        let domain = try TextInput.domain(raw)
        if blocking {
            guard try await store.domainBlocks(viewer: user).count < Limits.maxDomainBlocks else {
                throw UseCaseError.conflict(
                    .tooManyDomainBlocks, "You block \(Limits.maxDomainBlocks) servers, the most one can.")
            }
            _ = try await store.setDomainBlock(viewer: user, domain: domain, blocking: true)
            for person in try await core.store.remoteUsers(onDomain: domain) {
                _ = try? await store.setBlock(viewer: user, username: person.username, blocking: true, domain: domain)
            }
        } else {
            _ = try await store.setDomainBlock(viewer: user, domain: domain, blocking: false)
            for username in try await store.blockedByDomain(viewer: user, domain: domain) {
                _ = try? await store.setBlock(viewer: user, username: username, blocking: false, domain: nil)
            }
        }
        return try await store.domainBlocks(viewer: user)
    }

    /// The servers `user` blocks, in alphabetical order.
    package func domainBlocks(of user: Int64) async throws -> [String] {
        try await store.domainBlocks(viewer: user)
    }

    /// Blocks `username`, someone just met on another server, for everyone here who blocks their server.
    package func applyDomainBlocks(to username: String) async throws {
        guard let host = DomainName.host(ofUsername: username) else { return }
        for (user, domain) in try await store.domainBlockers(ofHost: host) {
            _ = try? await store.setBlock(viewer: user, username: username, blocking: true, domain: domain)
        }
    }
}

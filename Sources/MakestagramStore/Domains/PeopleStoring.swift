import Foundation
import MakestagramAPI

/// People: profiles, avatars, search, suggestions and follows. Part of ``Store``; both stores implement it.
public protocol PeopleStoring: Sendable {
    /// Changes a user's display name and bio (nil leaves one as it is) and answers their profile. A change
    /// publishes ``StoreEvent/profileChanged(user:)``.
    func updateProfile(userID: Int64, displayName: String?, bio: String?) async throws -> UserProfile
    /// Sets the user's avatar, whose files are already on disk (nil removes it: initials are shown), and answers
    /// their profile with the files of the avatar it replaced, for the caller to remove once this returns. Publishes
    /// ``StoreEvent/profileChanged(user:)``.
    func setAvatar(userID: Int64, files: AvatarFiles?) async throws -> (profile: UserProfile, replaced: [String])
    /// Sets whether the user's new posts hide their like count, and answers their profile.
    func setHidesLikeCounts(userID: Int64, hidden: Bool) async throws -> UserProfile
    /// A number that grows whenever something that posts show changes without the posts' versions growing (a user's
    /// name or avatar, shown on their posts and comments): JSON of posts rendered at an older epoch may be stale.
    var renderEpoch: UInt64 { get }

    /// A user's profile as `viewer` sees it, or nil when there is no such user.
    func profile(username: String, viewer: Int64) async throws -> UserProfile?
    /// A user's profile by ID as `viewer` sees it.
    func profile(id: Int64, viewer: Int64) async throws -> UserProfile?
    /// Users whose username or display name contains `query` (folded by ``PeopleSearch/fold(_:)``; below
    /// ``PeopleSearch/substringMinimum`` characters, whose username starts with it), ranked as ``PeopleSearch``
    /// describes for `viewer`.
    func searchUsers(query: String, viewer: Int64, limit: Int) async throws -> [UserSummary]
    /// People `viewer` might follow (``FollowSuggestions``), at most `limit`; `related` is a profile being looked at.
    func suggestedUsers(viewer: Int64, related: Int64?, limit: Int) async throws -> [UserSummary]
    /// Which of `users` `viewer` follows.
    func followed(by viewer: Int64, among users: [Int64]) async throws -> Set<Int64>
    /// Makes `viewer` follow or stop following `username`; idempotent. Following a private account, or someone on
    /// another server (whose server answers), asks to (a
    /// request, ``StoreEvent/followRequestChanged(requester:target:pending:)``: the answer says
    /// `viewerRequested`), unless already following; stopping withdraws a request too. Throws `notFound` (no such
    /// user, or one who blocks the viewer), `youBlockThem` or `cannotFollowSelf`.
    func setFollow(viewer: Int64, username: String, following: Bool) async throws -> FollowState
    /// Makes the user's account private or public and answers their profile. Switching to public accepts every
    /// pending request (each a follow); switching to private keeps the followers. Publishes
    /// ``StoreEvent/privacyChanged(user:isPrivate:)`` when it changed.
    func setPrivate(userID: Int64, isPrivate: Bool) async throws -> UserProfile
    /// Those who asked to follow `viewer` and wait for an answer, oldest first.
    func followRequests(viewer: Int64, page: PageRequest) async throws -> PageResult<UserSummary>
    /// Approves (the request becomes a follow) or declines `username`'s request to follow `viewer`. Throws
    /// `notFound("request")` when there is none.
    func answerFollowRequest(viewer: Int64, username: String, approve: Bool) async throws
    /// Makes `viewer` mute or unmute `username`; idempotent; answers whether the viewer mutes them now. A change
    /// publishes ``StoreEvent/muteChanged(muter:muted:muting:)`` in the transaction that takes the muted user's posts
    /// out of the viewer's home timeline (or puts them back, if the viewer follows them). Throws `notFound` or
    /// `cannotMuteSelf`.
    func setMute(viewer: Int64, username: String, muting: Bool) async throws -> Bool
    /// Those `viewer` mutes, most recently muted first.
    func mutes(viewer: Int64, page: PageRequest) async throws -> PageResult<UserSummary>
    /// Which of `users` `viewer` mutes.
    func muted(by viewer: Int64, among users: [Int64]) async throws -> Set<Int64>
    /// Makes `viewer` block or unblock `username`; idempotent; answers whether the viewer blocks them now. A block,
    /// in one transaction, ends the follows between them both ways and takes back the blocked user's likes and
    /// comments on the viewer's posts (each published as its own change, counts exact), then publishes
    /// ``StoreEvent/blockChanged(blocker:blocked:blocking:)``. An unblock restores nothing. Throws `notFound` or
    /// `cannotBlockSelf`.
    /// A block made by a block of a whole server (`domain`) is marked with it: lifting that block lifts it (an
    /// individual block already standing keeps no mark).
    func setBlock(viewer: Int64, username: String, blocking: Bool, domain: String?) async throws -> Bool
    /// The usernames `viewer` blocks because they block the server `domain`.
    func blockedByDomain(viewer: Int64, domain: String) async throws -> [String]
    /// Records that `viewer` blocks the server `domain` (and its subdomains), or no longer does; false when that
    /// changes nothing. The blocks of its people are the caller's to make or lift.
    func setDomainBlock(viewer: Int64, domain: String, blocking: Bool) async throws -> Bool
    /// The servers `viewer` blocks, in alphabetical order.
    func domainBlocks(viewer: Int64) async throws -> [String]
    /// The users who block a server covering `host`, each with the domain they block.
    func domainBlockers(ofHost host: String) async throws -> [(user: Int64, domain: String)]
    /// Those `viewer` blocks, most recently blocked first.
    func blocks(viewer: Int64, page: PageRequest) async throws -> PageResult<UserSummary>
    /// Which of `users` `viewer` blocks, and which of them block `viewer`.
    func blockRelations(viewer: Int64, among users: [Int64]) async throws -> (
        blocking: Set<Int64>, blockedBy: Set<Int64>
    )
    /// Everyone `user` blocks or is blocked by, by ID with their usernames: those the user's likers previews and
    /// comments leave out. Answered from memory when held (``StoreCaches/blockPartners``).
    func blockPartners(of user: Int64) async throws -> BlockPartnerSet
    /// Those who follow `username`, most recent first, but `viewer`'s block partners. Nil when there is no such
    /// user, or they block `viewer`.
    func followers(username: String, viewer: Int64, page: PageRequest) async throws -> PageResult<UserSummary>?
    /// Those `username` follows, most recent first, but `viewer`'s block partners. Nil when there is no such user,
    /// or they block `viewer`.
    func following(username: String, viewer: Int64, page: PageRequest) async throws -> PageResult<UserSummary>?
}

extension PeopleStoring {
    /// Makes `viewer` block or unblock `username` on their own (``setBlock(viewer:username:blocking:domain:)``).
    public func setBlock(viewer: Int64, username: String, blocking: Bool) async throws -> Bool {
        try await setBlock(viewer: viewer, username: username, blocking: blocking, domain: nil)
    }
}

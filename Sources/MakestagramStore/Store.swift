// MakestagramStore: what the server keeps, as a protocol — the Store's operations, its records and errors, and the
// StoreEvent each committed change becomes — so that routes, caches and live updates never depend on which
// database sits underneath.

import Foundation
import MakestagramAPI

/// Everything the server keeps, behind one protocol so that SQLite and PostgreSQL both serve it.
///
/// Every method is atomic: it either makes all of its change or none of it. Counts (likes, comments, follows,
/// posts, reports) are kept by the store in the same transaction as the rows they count, so they are always exact.
/// Every write also appends its change to the change log (``ChangeLogStore``) in that transaction; what is derived
/// from changes (activity, unread counts) is applied from the log after the commit, by the activity consumer.
/// Methods that take a `viewer` compute the viewer-specific fields (`viewerHasLiked`, `viewerFollows`).
///
/// A store given a ``StoreEventSink`` publishes one ``StoreEvent`` for every committed like, unlike, comment, post,
/// follow and log-out, after the commit and in commit order, so that live updates never announce a change that was
/// rolled back and never reorder two changes to one post. The same events keep the store's caches true
/// (``StoreCaches``).
public protocol Store: ChangeLogStore {
    // MARK: Accounts and sessions

    /// Creates a user. Throws ``StoreError/usernameTaken`` when the username exists in any letter case.
    func createUser(_ user: NewUser) async throws -> UserProfile
    /// The stored credentials for a username (any letter case), or nil when there is no such user (or it is being
    /// deleted).
    func credentials(username: String) async throws -> Credentials?
    /// Records a session whose bearer token hashes to `tokenHash`.
    func createSession(userID: Int64, tokenHash: [UInt8], client: SessionClient) async throws
    /// The user's sessions, most recently used first.
    func sessions(userID: Int64) async throws -> [SessionRecord]
    /// Notes that the session was used now, by `client`.
    func touchSession(tokenHash: [UInt8], client: SessionClient) async throws
    /// Replaces the user's password hash and ends every other session of theirs (each published as
    /// ``StoreEvent/sessionEnded(tokenHash:)``), in one transaction; answers how many ended.
    func changePassword(userID: Int64, passwordHash: String, keeping tokenHash: [UInt8]) async throws -> Int
    /// Ends the session with this token hash; the token stops working at once. Unknown hashes are ignored.
    func deleteSession(tokenHash: [UInt8]) async throws
    /// Whom a live session's token hash speaks for (the user, and the app and scopes of an app's token), or nil.
    func session(tokenHash: [UInt8]) async throws -> SessionIdentity?
    /// Records a single-use ticket for opening the event stream under the session `tokenHash`, until `expiresAt`.
    /// Tickets are kept with the sessions, so that any server instance can redeem one another issued; logging out
    /// ends the session's tickets.
    func createEventTicket(ticketHash: [UInt8], tokenHash: [UInt8], expiresAt: Date) async throws
    /// Uses up a live ticket and answers its session's user and token hash; nil for an unknown, used or expired
    /// ticket.
    func redeemEventTicket(ticketHash: [UInt8]) async throws -> (user: UserSummary, tokenHash: [UInt8])?

    // MARK: Users and follows

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
    /// Makes `viewer` follow or stop following `username`; idempotent. Throws `notFound` or `cannotFollowSelf`.
    func setFollow(viewer: Int64, username: String, following: Bool) async throws -> FollowState
    /// Those who follow `username`, most recent first. Nil when there is no such user.
    func followers(username: String, page: PageRequest) async throws -> PageResult<UserSummary>?
    /// Those `username` follows, most recent first. Nil when there is no such user.
    func following(username: String, page: PageRequest) async throws -> PageResult<UserSummary>?

    // MARK: Posts

    /// Stores a post whose variant files are already on disk.
    func createPost(_ post: NewPost) async throws -> Post
    /// One post as `viewer` sees it, or nil.
    func post(id: Int64, viewer: Int64) async throws -> Post?
    /// The posts among `ids` that exist, as `viewer` sees them, in no particular order.
    func posts(ids: [Int64], viewer: Int64) async throws -> [Post]
    /// Replaces the caption of a post `viewer` wrote and answers the post as they see it; the post's version grows
    /// and `editedAt` is set. An unchanged caption changes nothing. Throws `notFound` (no such post) or `forbidden`
    /// (someone else's).
    func editCaption(postID: Int64, viewer: Int64, caption: String) async throws -> Post
    /// Hides the like count of a post `viewer` wrote from everyone else (they keep seeing who liked it), or shows it
    /// again; the post's version grows and ``StoreEvent/likeCountHiddenChanged(postID:authorID:hidden:likeCount:version:)``
    /// is published. Unchanged changes nothing. Throws `notFound` or `forbidden` (someone else's post).
    func setLikeCountHidden(postID: Int64, viewer: Int64, hidden: Bool) async throws -> Post
    /// Deletes a post with its likes, comments and reports, if `viewer` wrote it, and answers the media files it
    /// referenced (for the caller to remove). Throws `notFound` (no such post) or `forbidden` (someone else's).
    func deletePost(id: Int64, viewer: Int64) async throws -> [String]
    /// The viewer's own posts and those of everyone they follow, newest first. Posts that `known` already holds at
    /// their current version come as ``ListedPost/known(id:version:viewerHasLiked:)``, the others in full.
    func timeline(viewer: Int64, page: PageRequest, known: @escaping KnownPosts) async throws -> PageResult<ListedPost>
    /// One user's posts, newest first, as ``timeline(viewer:page:known:)`` lists them; nil when there is no such
    /// user.
    func posts(username: String, viewer: Int64, page: PageRequest, known: @escaping KnownPosts) async throws
        -> PageResult<ListedPost>?

    /// Posts whose caption carries `#tag` (any letter case; ``Hashtags``), newest first, in full; an unknown tag
    /// has no posts.
    func posts(tag: String, viewer: Int64, page: PageRequest) async throws -> PageResult<Post>

    /// What a data export holds of the user (nil when there is no such user), read in one transaction.
    func dataExport(userID: Int64) async throws -> UserDataExport?
    /// Up to `limit` posts stored before responsive variants, after the post `after` in ID order: each one's ID and
    /// the file name of its full JPEG.
    func postsWithoutVariants(after: Int64, limit: Int) async throws -> [(id: Int64, fullFile: String)]
    /// Gives a post stored before responsive variants its variants (a new version, published as
    /// ``StoreEvent/imageChanged(postID:version:)``). False when it has some already or is gone: the caller then
    /// removes the files it wrote.
    func setVariants(postID: Int64, variants: [StoredVariant]) async throws -> Bool

    // MARK: Likes, comments and reports

    /// Makes `viewer` like or unlike a post; idempotent. Throws `notFound` for an unknown post.
    func setLike(postID: Int64, viewer: Int64, liked: Bool) async throws -> LikeState
    /// The users who liked a post, most recent first; nil when there is no such post.
    func likers(postID: Int64, page: PageRequest) async throws -> PageResult<UserSummary>?
    /// Adds a comment. Throws `notFound` for an unknown post.
    func addComment(postID: Int64, author: Int64, text: String) async throws -> Comment
    /// A post's comments, oldest first; nil when there is no such post.
    func comments(postID: Int64, page: PageRequest) async throws -> PageResult<Comment>?
    /// Deletes a comment if `viewer` wrote it or wrote the post. Throws `notFound` or `forbidden`.
    func deleteComment(id: Int64, viewer: Int64) async throws
    /// Flags a post. Throws `notFound`, `cannotReportOwnPost` or `alreadyReported`.
    func report(postID: Int64, reporter: Int64, reason: String) async throws
    /// How many times a post has been reported (for moderators), or nil when there is no such post.
    func reportCount(postID: Int64) async throws -> Int?

    // MARK: Activity

    /// What others did to `userID` (liked or commented on their posts, followed them), grouped as
    /// ``ActivityGroup`` describes, the group with the newest action first. A group's key is its newest action's
    /// ID. The user's own actions are never there; an unlike, a deleted comment or post, an unfollow or a deleted
    /// user takes away what it caused.
    func activity(userID: Int64, page: PageRequest) async throws -> PageResult<ActivityGroup>
    /// How many of the user's actions are unread.
    func unreadActivityCount(userID: Int64) async throws -> Int
    /// Marks the user's actions up to the ID `through` (nil: all) as read, and answers how many stay unread. Every
    /// change of a user's unread count, this one or one caused by a like, comment or follow, publishes
    /// ``StoreEvent/activityChanged(user:unreadCount:)``.
    func markActivityRead(userID: Int64, through: Int64?) async throws -> Int

    // MARK: Third-party apps (OAuth 2)

    /// Registers an app.
    func createOAuthApp(_ app: NewOAuthApp) async throws -> OAuthApp
    /// The app with this client ID, or nil.
    func oauthApp(clientID: String) async throws -> OAuthApp?
    /// Records an authorization code (by its hash) that the user granted the app, until `expiresAt`.
    func createAuthorizationCode(codeHash: [UInt8], grant: AuthorizationGrant, expiresAt: Date) async throws
    /// Uses up a live authorization code and answers what was granted; nil for an unknown, used or expired one.
    func redeemAuthorizationCode(codeHash: [UInt8]) async throws -> AuthorizationGrant?
    /// Records a session for an app's access token, with the scopes granted to it.
    func createAppSession(userID: Int64, tokenHash: [UInt8], appID: Int64, scopes: String) async throws
    /// The apps that hold tokens of the user, most recently authorised first.
    func authorizedApps(userID: Int64) async throws -> [AuthorizedApp]
    /// Records a token an app holds for itself (no user), with its scopes.
    func createAppToken(tokenHash: [UInt8], appID: Int64, scopes: String) async throws
    /// The app and scopes of an app's own token, or nil.
    func appToken(tokenHash: [UInt8]) async throws -> (app: OAuthApp, scopes: String)?
    /// Ends an app's own token; unknown hashes are ignored.
    func deleteAppToken(tokenHash: [UInt8], appID: Int64) async throws
    /// The app with this ID, or nil.
    func oauthApp(id: Int64) async throws -> OAuthApp?
    /// Keeps a photo uploaded ahead of its post (`image`'s caption is ignored), whose files are on disk; answers its
    /// ID. Uploads older than `expiringBefore` are forgotten meanwhile: their files are answered for removal.
    func createMediaUpload(_ image: NewPost, expiringBefore: Date) async throws -> (id: Int64, expired: [String])
    /// A photo the user uploaded and has not posted yet, or nil.
    func mediaUpload(id: Int64, userID: Int64) async throws -> NewPost?
    /// Posts a photo the user uploaded ahead, with `caption`, and forgets the upload, in one transaction. Throws
    /// `notFound("media")` when there is no such upload of theirs.
    func createPost(fromUpload id: Int64, userID: Int64, caption: String) async throws -> Post
    /// Ends every token the app holds for the user (each published as ``StoreEvent/sessionEnded(tokenHash:)``, so
    /// that its streams close); answers how many ended.
    func revokeApp(appID: Int64, userID: Int64) async throws -> Int

    // MARK: Deleting accounts

    /// Begins deleting the user's account, in one transaction: the account is hidden from everyone at once
    /// (``AccountStatus/deleting``), its sessions end, and its username is reserved until `reserveUsernameUntil`
    /// (``createUser(_:)`` refuses it as taken). Publishes ``StoreEvent/userRemoved(user:username:status:)``. Its rows go in
    /// later batches (``continueAccountDeletion(userID:limit:)``).
    func beginAccountDeletion(userID: Int64, reserveUsernameUntil: Date) async throws
    /// The accounts whose deletion began but did not finish (after a crash, say), oldest first.
    func accountsBeingDeleted() async throws -> [Int64]
    /// Deletes up to about `limit` rows of an account being deleted, in one transaction: first its likes, comments,
    /// reports and follows (each published as an unlike, a deleted comment or an unfollow, so that every count and
    /// screen follows), then its posts, and last the user. Answers the media files no longer referenced. An
    /// account not being deleted is left alone (finished, no files).
    func continueAccountDeletion(userID: Int64, limit: Int) async throws -> AccountDeletionStep

    // MARK: Moderation

    /// Makes the user a moderator or not, written to the moderation log as done by `by` (nil: the server's
    /// operator). Throws `notFound` for an unknown or deleted username.
    func setModerator(username: String, moderator: Bool, by: Int64?) async throws
    /// Whether the user is an active moderator.
    func isModerator(userID: Int64) async throws -> Bool
    /// Posts with reports not yet handled, the oldest waiting report first, as `viewer` (a moderator) sees them.
    /// Posts of suspended users are not there (their reports were handled by the suspension).
    func reportQueue(viewer: Int64, page: PageRequest) async throws -> PageResult<ReportedPost>
    /// Marks the post's waiting reports as handled, leaving the post; logged. Throws `notFound` when the post has
    /// no waiting reports (or does not exist).
    func dismissReports(postID: Int64, moderator: Int64, reason: String) async throws
    /// Deletes anyone's post as ``deletePost(id:viewer:)`` does; logged. Answers the media files to remove.
    func removePost(postID: Int64, moderator: Int64, reason: String) async throws -> [String]
    /// Suspends a user (their sessions end, everything of theirs is hidden, the reports of their posts are handled)
    /// or lifts their suspension; logged, and published as ``StoreEvent/userRemoved(user:username:status:)`` or
    /// ``StoreEvent/userRestored(user:username:)``. Throws `notFound` for an unknown or deleted username, `forbidden` for
    /// suspending oneself or another moderator; a change that changes nothing is not logged.
    func setSuspended(username: String, suspended: Bool, moderator: Int64, reason: String) async throws
    /// The moderation log, newest first.
    func moderationLog(page: PageRequest) async throws -> PageResult<ModerationEntry>

    /// Whether anyone is hidden from everyone (suspended, or being deleted), and a number that grows whenever who
    /// is may have changed: routes that serve what only names a user (media files) check it on every request.
    var hiddenUsers: HiddenUsersSummary { get }
    /// The media files of the users hidden from everyone (their posts' photos, uploads and avatars), for the media
    /// routes to refuse.
    func hiddenUsersMedia() async throws -> Set<String>

    // MARK: Maintenance

    /// Every media file name that some row references. A SQLite store reads it in short transactions, so a file
    /// of a post created meanwhile may be missing: the sweep leaves young files alone.
    func referencedMediaFiles() async throws -> MediaNameSet
    /// Runs `body` unless the job named `job` is running already, on any server instance of this database, and
    /// answers whether it ran. So housekeeping that every instance starts (the media sweep, making variants of
    /// older posts) is done once, not once per instance. The claim ends when `body` returns or throws, or when its
    /// instance dies: a job left half-done is taken up again by the next instance that asks.
    func runAlone(_ job: String, _ body: @escaping @Sendable () async throws -> Void) async throws -> Bool
}

/// Answers whether the caller already holds a post at a version (for instance as rendered JSON); asked while the
/// list is read, so that a post it holds is neither decoded nor sent again.
public typealias KnownPosts = @Sendable (_ id: Int64, _ version: Int64) -> Bool

/// A post in a list read with ``KnownPosts``.
public enum ListedPost: Sendable, Equatable {
    /// A post the caller did not hold at this version. Boxed: a post is large and rarely listed in full once the
    /// caller holds it, so pages of known posts stay small arrays.
    indirect case post(Post)
    /// A post the caller holds at `version`, with the one field that depends on who reads it.
    case known(id: Int64, version: Int64, viewerHasLiked: Bool)
}

extension ListedPost {
    /// The post's ID.
    public var id: Int64 {
        switch self {
        case .post(let post): post.id
        case .known(let id, _, _): id
        }
    }

    /// The version the post was listed at.
    public var version: Int64 {
        switch self {
        case .post(let post): post.version
        case .known(_, let version, _): version
        }
    }

    /// Whether the reader likes the post.
    public var viewerHasLiked: Bool {
        switch self {
        case .post(let post): post.viewerHasLiked
        case .known(_, _, let viewerHasLiked): viewerHasLiked
        }
    }
}

extension Store {
    /// The viewer's own posts and those of everyone they follow, newest first, in full.
    public func timeline(viewer: Int64, page: PageRequest) async throws -> PageResult<Post> {
        try await timeline(viewer: viewer, page: page, known: { _, _ in false }).fullPosts
    }

    /// One user's posts, newest first, in full; nil when there is no such user.
    public func posts(username: String, viewer: Int64, page: PageRequest) async throws -> PageResult<Post>? {
        try await posts(username: username, viewer: viewer, page: page, known: { _, _ in false })?.fullPosts
    }
}

extension PageResult<ListedPost> {
    /// The page of a list read with a `known` that held nothing.
    var fullPosts: PageResult<Post> {
        PageResult<Post>(
            items: items.map {
                guard case .post(let post) = $0 else { preconditionFailure("a post was listed as known") }
                return post
            }, nextKey: nextKey, newestKey: newestKey)
    }
}

extension PageResult<ListedPost> {
    /// The page of a newest-first post list from the rows read for `request`, which asked for one more than its
    /// limit (to learn whether more follow): newest first, with the keys to continue from. For `.newerThan` the rows
    /// are the posts just above the key, read oldest first, so that repeating with the new top fills any gap.
    package static func newestFirst(_ rows: [ListedPost], request: PageRequest) -> PageResult<ListedPost> {
        var items = rows
        let hasMore = items.count > request.limit
        if hasMore { items.removeLast() }
        if case .newerThan(let newer) = request.position {
            items.reverse()
            return PageResult(items: items, nextKey: nil, newestKey: items.first?.id ?? newer)
        }
        return PageResult(items: items, nextKey: hasMore ? items.last?.id : nil, newestKey: items.first?.id)
    }

    /// The listed posts that `known` does not hold at their listed version: those to read in full.
    package func missing(_ known: KnownPosts) -> [Int64] {
        items.compactMap { item -> Int64? in
            guard case .known(let id, let version, _) = item, !known(id, version) else { return nil }
            return id
        }
    }

    /// The page with the `missing` posts replaced by `full`, as read; a post deleted since it was listed (when the
    /// list came from memory) leaves the page.
    package func completed(missing: [Int64], full: [Post]) -> PageResult<ListedPost> {
        let full = Dictionary(full.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let wanted = Set(missing)
        var page = self
        page.items = items.compactMap { item in
            guard wanted.contains(item.id) else { return item }
            return full[item.id].map(ListedPost.post)
        }
        return page
    }
}

extension Store {
    /// The user a live session's token hash belongs to, or nil.
    public func sessionUser(tokenHash: [UInt8]) async throws -> UserSummary? {
        try await session(tokenHash: tokenHash)?.user
    }

    /// A session with nothing known about its client.
    public func createSession(userID: Int64, tokenHash: [UInt8]) async throws {
        try await createSession(userID: userID, tokenHash: tokenHash, client: SessionClient())
    }
}

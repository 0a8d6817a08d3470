import Foundation
import MakestagramAPI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every endpoint of the API (see `openapi.yaml`), one method each.
extension APIClient {
    // MARK: Accounts and sessions

    /// Creates an account and answers it with a new session's token.
    public func signUp(username: String, password: String, displayName: String) async throws -> AuthResponse {
        try await send(
            .post, "/accounts", json: SignUpRequest(username: username, password: password, displayName: displayName))
    }

    /// Logs in and answers the user with a new session's token.
    public func logIn(username: String, password: String) async throws -> AuthResponse {
        try await send(.post, "/sessions", json: LogInRequest(username: username, password: password))
    }

    /// Ends the current session on the server; its token stops working at once.
    public func logOut() async throws {
        try await sendWithoutAnswer(.delete, "/sessions/current")
    }

    /// The logged-in user's profile.
    public func me() async throws -> UserProfile {
        try await send(.get, "/me")
    }

    /// A ZIP of everything the user put in: profile, posts with their photos, comments, follows (a few a hour).
    public func exportData() async throws -> Data {
        try await sendForData(.get, "/me/export")
    }

    /// Where the user is logged in, most recently used first; `current` marks this client's session.
    public func sessions() async throws -> [SessionInfo] {
        let page: Page<SessionInfo> = try await send(.get, "/me/sessions")
        return page.items
    }

    /// Logs out one of the user's sessions (by ``SessionInfo/id``): its token fails at once and its live
    /// connections close.
    public func endSession(_ id: String) async throws {
        try await sendWithoutAnswer(.delete, "/me/sessions/\(Self.segment(id))")
    }

    /// Deletes the account for good (its password is needed): it disappears at once and its posts, comments, likes
    /// and follows go within moments. The token stops working. A POST: never retried.
    public func deleteAccount(password: String) async throws {
        try await sendWithoutAnswer(.post, "/me/delete", json: DeleteAccountRequest(password: password))
    }

    /// Changes the password (the current one is needed) and logs out every other session; answers how many.
    /// A POST: never retried.
    public func changePassword(current: String, new: String) async throws -> PasswordChanged {
        try await send(.post, "/me/password", json: ChangePasswordRequest(currentPassword: current, newPassword: new))
    }

    /// Changes the logged-in user's display name, bio, like-count default and privacy (nil leaves one as it is);
    /// answers the profile. Making the account public accepts every pending follow request.
    public func updateProfile(
        displayName: String? = nil, bio: String? = nil, hideLikeCounts: Bool? = nil, isPrivate: Bool? = nil
    ) async throws -> UserProfile {
        try await send(
            .patch, "/me",
            json: EditProfileRequest(
                displayName: displayName, bio: bio, hideLikeCounts: hideLikeCounts, isPrivate: isPrivate))
    }

    /// Those who asked to follow the logged-in user's private account, oldest first.
    public func followRequests(cursor: String? = nil, limit: Int? = nil) async throws -> Page<UserSummary> {
        try await send(.get, "/me/follow-requests", query: Self.paging(cursor, limit))
    }

    /// Approves `username`'s request to follow the logged-in user: they follow from now on.
    public func approveFollowRequest(_ username: String) async throws {
        try await sendWithoutAnswer(.post, "/me/follow-requests/\(Self.segment(username))/approve")
    }

    /// Declines `username`'s request to follow the logged-in user; they are not told.
    public func declineFollowRequest(_ username: String) async throws {
        try await sendWithoutAnswer(.post, "/me/follow-requests/\(Self.segment(username))/decline")
    }

    /// Stops `username` following the logged-in user, or waiting to; they are not told, and may ask again.
    public func removeFollower(_ username: String) async throws {
        try await sendWithoutAnswer(.delete, "/me/followers/\(Self.segment(username))")
    }

    /// Makes a photo (JPEG, PNG, WebP or HEIC bytes) the logged-in user's avatar; the server crops it square.
    public func setAvatar(image: Data, fileName: String = "avatar.jpg") async throws -> UserProfile {
        let form = MultipartForm(fields: [:], file: (field: "image", name: fileName, data: image))
        let data = try await sendForData(.put, "/me/avatar", body: (form.body, form.contentType))
        do {
            return try JSONCoding.decoder().decode(UserProfile.self, from: data)
        } catch {
            throw MakestagramError.invalidResponse("UserProfile: \(error)")
        }
    }

    /// Removes the logged-in user's avatar (initials are shown again).
    public func removeAvatar() async throws -> UserProfile {
        try await send(.delete, "/me/avatar")
    }

    // MARK: Users and follows

    /// People whose username or display name contains `query` (case and accents ignored; one or two characters
    /// match the start of usernames), best matches and people you follow first. Each says whether you follow them.
    public func searchUsers(_ query: String, limit: Int? = nil) async throws -> Page<UserSummary> {
        try await send(.get, "/users", query: ["query": query, "limit": limit.map(String.init)])
    }

    /// People you might follow: those followed by people you follow, then the most followed. `relatedTo`, a
    /// profile being looked at, puts whom it follows first.
    public func suggestedUsers(relatedTo username: String? = nil, limit: Int? = nil) async throws -> Page<UserSummary> {
        try await send(.get, "/me/suggestions", query: ["for": username, "limit": limit.map(String.init)])
    }

    /// A user's profile with counts and whether the viewer follows them.
    public func profile(_ username: String) async throws -> UserProfile {
        try await send(.get, "/users/\(Self.segment(username))")
    }

    /// Follows a user (idempotent).
    public func follow(_ username: String) async throws -> FollowState {
        try await send(.put, "/users/\(Self.segment(username))/follow")
    }

    /// Stops following a user (idempotent).
    public func unfollow(_ username: String) async throws -> FollowState {
        try await send(.delete, "/users/\(Self.segment(username))/follow")
    }

    /// Mutes a user (idempotent): their posts leave the home feed and their activity the activity list; they are
    /// not told.
    public func mute(_ username: String) async throws -> MuteState {
        try await send(.put, "/users/\(Self.segment(username))/mute")
    }

    /// Unmutes a user (idempotent): their posts and activity come back.
    public func unmute(_ username: String) async throws -> MuteState {
        try await send(.delete, "/users/\(Self.segment(username))/mute")
    }

    /// Blocks a user (idempotent): the follows between you end both ways, their likes and comments on your posts
    /// are removed, and neither sees nor reaches the other until you unblock; they are not told.
    public func block(_ username: String) async throws -> BlockState {
        try await send(.put, "/users/\(Self.segment(username))/block")
    }

    /// Unblocks a user (idempotent); what the block ended does not come back by itself.
    public func unblock(_ username: String) async throws -> BlockState {
        try await send(.delete, "/users/\(Self.segment(username))/block")
    }

    /// Blocks a whole server (and its subdomains) for the viewer: each of its people known here and each met later;
    /// answers the servers the viewer blocks.
    public func blockServer(_ domain: String) async throws -> BlockedServers {
        try await send(.put, "/me/domain-blocks/\(Self.segment(domain))")
    }

    /// Stops blocking a server: the blocks it made are lifted, those made one by one stay.
    public func unblockServer(_ domain: String) async throws -> BlockedServers {
        try await send(.delete, "/me/domain-blocks/\(Self.segment(domain))")
    }

    /// The servers the viewer blocks, in alphabetical order.
    public func blockedServers() async throws -> BlockedServers {
        try await send(.get, "/me/domain-blocks")
    }

    /// The people the viewer blocks, most recently blocked first.
    public func blockedUsers(cursor: String? = nil, limit: Int? = nil) async throws -> Page<UserSummary> {
        try await send(.get, "/me/blocks", query: Self.paging(cursor, limit))
    }

    /// The people the viewer mutes, most recently muted first.
    public func mutedUsers(cursor: String? = nil, limit: Int? = nil) async throws -> Page<UserSummary> {
        try await send(.get, "/me/mutes", query: Self.paging(cursor, limit))
    }

    /// Who follows a user, most recent first.
    public func followers(of username: String, cursor: String? = nil, limit: Int? = nil) async throws -> Page<
        UserSummary
    > {
        try await send(.get, "/users/\(Self.segment(username))/followers", query: Self.paging(cursor, limit))
    }

    /// Whom a user follows, most recent first.
    public func following(of username: String, cursor: String? = nil, limit: Int? = nil) async throws -> Page<
        UserSummary
    > {
        try await send(.get, "/users/\(Self.segment(username))/following", query: Self.paging(cursor, limit))
    }

    /// One user's posts, newest first.
    public func posts(by username: String, cursor: String? = nil, limit: Int? = nil) async throws -> Page<Post> {
        try await send(.get, "/users/\(Self.segment(username))/posts", query: Self.paging(cursor, limit))
    }

    // MARK: Posts

    /// The home timeline: the viewer's posts and those of whom they follow, newest first. Pass a page's
    /// `nextCursor` for older posts, its `newerCursor` for newer ones.
    public func timeline(cursor: String? = nil, limit: Int? = nil) async throws -> Page<Post> {
        try await send(.get, "/timeline", query: Self.paging(cursor, limit))
    }

    /// Posts whose caption carries `#tag` (without the `#`, any letter case), newest first.
    public func posts(tagged tag: String, cursor: String? = nil, limit: Int? = nil) async throws -> Page<Post> {
        try await send(.get, "/tags/\(Self.segment(tag))/posts", query: Self.paging(cursor, limit))
    }

    /// One post.
    public func post(_ id: Int64) async throws -> Post {
        try await send(.get, "/posts/\(id)")
    }

    /// Shares a photo (JPEG, PNG, WebP or HEIC bytes), cut by the server as `crop` says, with what it shows for
    /// those who cannot see it (`altText`, at most ``Limits/altTextLength``). `progress` gets the fraction of the
    /// upload sent.
    public func createPost(
        image: Data, fileName: String = "photo.jpg", caption: String = "", crop: PhotoCrop = .original,
        altText: String? = nil, progress: (@Sendable (Double) -> Void)? = nil
    ) async throws -> Post {
        var fields = ["caption": caption, "crop": crop.rawValue]
        if let altText { fields["altText"] = altText }
        let form = MultipartForm(fields: fields, file: (field: "image", name: fileName, data: image))
        let data = try await sendForData(
            .post, "/posts", body: (form.body, form.contentType), progress: progress ?? { _ in })
        do {
            return try JSONCoding.decoder().decode(Post.self, from: data)
        } catch {
            throw MakestagramError.invalidResponse("Post: \(error)")
        }
    }

    /// Uploads a photo for a post to come (``createPost(uploads:caption:)``), cut as `crop` says, with its alt text;
    /// `progress` gets the fraction sent. The server keeps it unposted for a day.
    public func upload(
        image: Data, fileName: String = "photo.jpg", crop: PhotoCrop = .original, altText: String? = nil,
        progress: (@Sendable (Double) -> Void)? = nil
    ) async throws -> UploadedPhoto {
        var fields = ["crop": crop.rawValue]
        if let altText { fields["altText"] = altText }
        let form = MultipartForm(fields: fields, file: (field: "image", name: fileName, data: image))
        let data = try await sendForData(
            .post, "/uploads", body: (form.body, form.contentType), progress: progress ?? { _ in })
        do {
            return try JSONCoding.decoder().decode(UploadedPhoto.self, from: data)
        } catch {
            throw MakestagramError.invalidResponse("UploadedPhoto: \(error)")
        }
    }

    /// Forgets a photo uploaded and not posted.
    public func deleteUpload(_ id: Int64) async throws {
        try await sendWithoutAnswer(.delete, "/uploads/\(id)")
    }

    /// Posts photos uploaded first, in the order given (an album when there are several).
    public func createPost(uploads: [Int64], caption: String = "") async throws -> Post {
        try await send(.post, "/posts", json: NewPostRequest(caption: caption, uploads: uploads))
    }

    /// Replaces the caption of one of the viewer's posts; answers the post as it is now.
    public func editCaption(of id: Int64, to caption: String) async throws -> Post {
        try await send(.patch, "/posts/\(id)", json: EditPostRequest(caption: caption))
    }

    /// Replaces the alt text (empty removes it) of the photo `photo` (counted from 1) of one of the viewer's posts;
    /// answers the post as it is now.
    public func editAltText(of id: Int64, photo: Int = 1, to altText: String) async throws -> Post {
        try await send(
            .patch, "/posts/\(id)", json: EditPostRequest(altText: altText, photo: photo == 1 ? nil : photo))
    }

    /// Hides the like count of one of the viewer's posts from everyone else (true), or shows it again.
    public func setLikeCountHidden(of id: Int64, _ hidden: Bool) async throws -> Post {
        try await send(.patch, "/posts/\(id)", json: EditPostRequest(hideLikeCount: hidden))
    }

    /// Deletes one of the viewer's posts, with its likes, comments and photos.
    public func deletePost(_ id: Int64) async throws {
        try await sendWithoutAnswer(.delete, "/posts/\(id)")
    }

    // MARK: Likes, comments and reports

    /// Likes a post (idempotent); answers its like state after the change.
    public func like(_ postID: Int64) async throws -> LikeState {
        try await send(.put, "/posts/\(postID)/like")
    }

    /// Takes a like back (idempotent).
    public func unlike(_ postID: Int64) async throws -> LikeState {
        try await send(.delete, "/posts/\(postID)/like")
    }

    /// Who liked a post, newest first.
    public func likers(of postID: Int64, cursor: String? = nil, limit: Int? = nil) async throws -> Page<UserSummary> {
        try await send(.get, "/posts/\(postID)/likes", query: Self.paging(cursor, limit))
    }

    /// Comments on a post.
    public func comment(on postID: Int64, text: String) async throws -> Comment {
        try await send(.post, "/posts/\(postID)/comments", json: NewCommentRequest(text: text))
    }

    /// A post's comments, oldest first.
    public func comments(on postID: Int64, cursor: String? = nil, limit: Int? = nil) async throws -> Page<Comment> {
        try await send(.get, "/posts/\(postID)/comments", query: Self.paging(cursor, limit))
    }

    /// Deletes a comment (the viewer's own, or any on the viewer's post).
    public func deleteComment(_ id: Int64) async throws {
        try await sendWithoutAnswer(.delete, "/comments/\(id)")
    }

    /// Flags a post for the moderators, once per user.
    public func report(_ postID: Int64, reason: String) async throws {
        try await sendWithoutAnswer(.post, "/posts/\(postID)/reports", json: ReportRequest(reason: reason))
    }

    // MARK: Moderation (moderators only: everyone else gets 403)

    /// Reported posts not yet handled, the oldest waiting report first.
    public func reportQueue(cursor: String? = nil, limit: Int? = nil) async throws -> Page<ReportedPost> {
        try await send(.get, "/moderation/reports", query: Self.paging(cursor, limit))
    }

    /// Dismisses a post's waiting reports: the post stays.
    public func dismissReports(of postID: Int64, reason: String? = nil) async throws {
        try await sendWithoutAnswer(
            .post, "/moderation/reports/\(postID)/dismiss", json: ModerationRequest(reason: reason))
    }

    /// Removes anyone's post, with its likes, comments, reports and photos.
    public func removePost(_ postID: Int64, reason: String? = nil) async throws {
        try await sendWithoutAnswer(
            .post, "/moderation/posts/\(postID)/remove", json: ModerationRequest(reason: reason))
    }

    /// Suspends a user: they are logged out everywhere, their posts and comments hidden, and log-in refused.
    public func suspend(_ username: String, reason: String? = nil) async throws {
        try await sendWithoutAnswer(
            .post, "/moderation/users/\(Self.segment(username))/suspend", json: ModerationRequest(reason: reason))
    }

    /// Lifts a user's suspension.
    public func unsuspend(_ username: String, reason: String? = nil) async throws {
        try await sendWithoutAnswer(
            .post, "/moderation/users/\(Self.segment(username))/unsuspend", json: ModerationRequest(reason: reason))
    }

    /// Gives a person here a new signing key (moderators; the server must federate).
    public func rotateKey(of username: String) async throws {
        try await sendWithoutAnswer(.post, "/moderation/users/\(Self.segment(username))/rotate-key")
    }

    /// How deliveries to each other server go (moderators).
    public func deliveryServers() async throws -> DeliveryServers {
        try await send(.get, "/moderation/servers")
    }

    /// Tries a failing server again now (moderators).
    public func retryServer(_ server: String) async throws -> DeliveryServers {
        try await send(.post, "/moderation/servers/\(Self.segment(server))/retry")
    }

    /// The servers the moderators block for everyone, most recently blocked first (moderators only).
    public func serverBlocks() async throws -> ServerBlocks {
        try await send(.get, "/moderation/domain-blocks")
    }

    /// Suspends or limits another server (and its subdomains) for everyone here.
    public func moderateServer(_ domain: String, severity: DomainBlockSeverity, reason: String? = nil) async throws
        -> ServerBlocks
    {
        try await send(
            .put, "/moderation/domain-blocks/\(Self.segment(domain))",
            json: DomainBlockRequest(severity: severity, reason: reason))
    }

    /// Lifts the moderators' block of a server.
    public func liftServerBlock(_ domain: String, reason: String? = nil) async throws -> ServerBlocks {
        try await send(
            .delete, "/moderation/domain-blocks/\(Self.segment(domain))", json: ModerationRequest(reason: reason))
    }

    /// What moderators (and the server's operator) did, newest first.
    public func moderationLog(cursor: String? = nil, limit: Int? = nil) async throws -> Page<ModerationEntry> {
        try await send(.get, "/moderation/log", query: Self.paging(cursor, limit))
    }

    // MARK: Activity

    /// What others did to the viewer, grouped, the group with the newest action first.
    public func activity(cursor: String? = nil, limit: Int? = nil) async throws -> Page<ActivityGroup> {
        try await send(.get, "/activity", query: Self.paging(cursor, limit))
    }

    /// How many of the viewer's actions are unread.
    public func unreadActivity() async throws -> ActivityUnread {
        try await send(.get, "/activity/unread")
    }

    /// Marks the viewer's actions up to `through` (a group's `latestId`; nil: all) as read.
    public func markActivityRead(through: Int64? = nil) async throws -> ActivityUnread {
        try await send(.post, "/activity/read", json: MarkActivityRead(through: through))
    }

    // MARK: Live updates and media

    /// A single-use ticket for opening the event stream without a header (browsers).
    public func eventTicket() async throws -> EventTicket {
        try await send(.post, "/events/tickets")
    }

    /// The WebSocket URL of the event stream.
    public var eventsURL: URL {
        var components = URLComponents(url: url("/events"), resolvingAgainstBaseURL: false) ?? URLComponents()
        components.scheme = components.scheme == "https" ? "wss" : "ws"
        return components.url ?? server
    }

    /// The bytes of a media file, from the `url` a post or user carries (`/media/…`).
    public func media(_ path: String) async throws -> Data {
        guard let url = URL(string: path, relativeTo: server)?.absoluteURL else {
            throw MakestagramError.invalidResponse("bad media URL \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        do {
            let (data, response) = try await transport.send(request, progress: nil)
            guard (200..<300).contains(response.statusCode) else {
                throw MakestagramError.server(Self.problem(data, status: response.statusCode))
            }
            return data
        } catch {
            throw MakestagramError.transport(error)
        }
    }

    // MARK: Helpers

    static func paging(_ cursor: String?, _ limit: Int?) -> [String: String?] {
        ["cursor": cursor, "limit": limit.map(String.init)]
    }

    /// A username as a path segment (usernames are `[a-z0-9_.]`, but a caller may pass anything).
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? text
    }

    /// What a path segment carries as it is: ASCII letters and digits, `_`, `.` and `-` (`.alphanumerics` would let
    /// `é` through unencoded).
    static let segmentCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
}

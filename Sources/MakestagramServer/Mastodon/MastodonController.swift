import Foundation
import HTTPTypes
import Hummingbird
import MakestagramAPI
import MakestagramCore
import MakestagramStore

/// The part of the Mastodon client API a photo app needs (docs/mastodon-api.md), over the same use cases and rules as
/// the native API: posts are statuses with one photo, comments are replies, likes are favourites. Every route but the
/// instance's needs a token; an app's token needs the route's scope (``RouteScopes``).
struct MastodonController<S: Store>: Sendable {
    let core: Core<S>
    let limits: ClientLimits

    var store: S { core.store }
    var maxUploadBytes: Int { core.maxUploadBytes }

    /// The version Mastodon clients read, in the form they parse.
    static var version: String { "4.3.0 (compatible; Makestagram 1.0)" }

    var publicRoutes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        // The router matches these with a trailing slash too (Mastodon.py asks `/api/v1/instance/`).
        routes.get("api/v1/instance", use: instanceV1)
        routes.get("api/v2/instance", use: instanceV2)
        return routes
    }

    /// Routes under `/api/v1` for a token.
    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("accounts/verify_credentials", use: verifyCredentials)
        routes.patch("accounts/update_credentials", use: updateCredentials)
        routes.get("accounts/relationships", use: relationships)
        routes.get("accounts/lookup", use: lookup)
        routes.get("accounts/search", use: searchAccounts)
        routes.get("accounts/:id", use: account)
        routes.get("accounts/:id/statuses", use: accountStatuses)
        routes.get("accounts/:id/followers") { try await followList($0, $1, followers: true) }
        routes.get("accounts/:id/following") { try await followList($0, $1, followers: false) }
        routes.post("accounts/:id/follow") { try await follow($0, $1, following: true) }
        routes.post("accounts/:id/unfollow") { try await follow($0, $1, following: false) }
        routes.post("accounts/:id/mute") { try await mute($0, $1, muting: true) }
        routes.post("accounts/:id/unmute") { try await mute($0, $1, muting: false) }
        routes.get("mutes", use: mutes)
        routes.post("accounts/:id/remove_from_followers", use: removeFromFollowers)
        routes.post("accounts/:id/block") { try await block($0, $1, blocking: true) }
        routes.post("accounts/:id/unblock") { try await block($0, $1, blocking: false) }
        routes.get("blocks", use: blocks)
        routes.get("domain_blocks", use: domainBlocks)
        routes.post("reports", use: report)
        routes.post("domain_blocks") { try await blockDomain($0, $1, blocking: true) }
        routes.delete("domain_blocks") { try await blockDomain($0, $1, blocking: false) }
        routes.get("follow_requests", use: followRequests)
        routes.post("follow_requests/:id/authorize") { try await answer($0, $1, approve: true) }
        routes.post("follow_requests/:id/reject") { try await answer($0, $1, approve: false) }
        routes.get("timelines/home", use: homeTimeline)
        routes.get("timelines/public", use: publicTimeline)
        routes.post("statuses", use: createStatus)
        routes.get("statuses/:id", use: status)
        routes.put("statuses/:id", use: editStatus)
        routes.delete("statuses/:id", use: deleteStatus)
        routes.get("statuses/:id/context", use: context)
        routes.post("statuses/:id/favourite") { try await favourite($0, $1, liked: true) }
        routes.post("statuses/:id/unfavourite") { try await favourite($0, $1, liked: false) }
        routes.get("statuses/:id/favourited_by", use: favouritedBy)
        routes.get("media/:id", use: media)
        routes.put("media/:id", use: updateMedia)
        routes.delete("media/:id", use: deleteMedia)
        routes.get("notifications", use: notifications)
        return routes
    }

    /// Routes under `/api/v2` for a token.
    var routesV2: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.post("media", use: uploadMedia)
        routes.get("search", use: search)
        return routes
    }

    func mapper(_ request: Request, _ context: AppRequestContext) throws -> MastodonMapper<S> {
        MastodonMapper(store: store, viewer: try context.requireUser().id, origin: limits.origin(of: request, context))
    }

    // MARK: Instance

    func instanceFields(_ request: Request, _ context: AppRequestContext) -> [String: Any] {
        let origin = limits.origin(of: request, context)
        let host = request.head.authority ?? "127.0.0.1"
        return [
            "uri": host, "domain": host, "title": "Makestagram", "version": Self.version,
            "source_url": "https://makestagram.dev",
            "short_description": "Photos with your friends.", "description": "A Makestagram photo-sharing server.",
            "email": "", "languages": ["en"], "registrations": true, "approval_required": false,
            "invites_enabled": false, "rules": [],
            "urls": ["streaming_api": origin.replacingOccurrences(of: "http", with: "ws")],
            "configuration": [
                "statuses": [
                    "max_characters": Limits.captionLength.upperBound, "max_media_attachments": core.maxPhotosPerPost,
                    "characters_reserved_per_url": 23,
                ],
                "media_attachments": [
                    "supported_mime_types": ["image/jpeg", "image/png", "image/webp", "image/heic", "image/heif"],
                    "image_size_limit": maxUploadBytes, "image_matrix_limit": 50_000_000,
                    "video_size_limit": 0, "video_frame_rate_limit": 0, "video_matrix_limit": 0,
                    "description_limit": PostImage.altTextLimit,
                ],
                "polls": ["max_options": 0, "max_characters_per_option": 0],
                "accounts": ["max_featured_tags": 0, "max_pinned_statuses": 0],
            ],
        ]
    }

    @Sendable func instanceV1(_ request: Request, context: AppRequestContext) async throws -> Response {
        var fields = instanceFields(request, context)
        fields["stats"] = ["user_count": 0, "status_count": 0, "domain_count": 1]
        return try OAuthController<S>.json(fields, status: .ok)
    }

    @Sendable func instanceV2(_ request: Request, context: AppRequestContext) async throws -> Response {
        let v1 = instanceFields(request, context)
        let origin = limits.origin(of: request, context)
        let fields: [String: Any] = [
            "domain": v1["domain"]!, "title": "Makestagram", "version": Self.version,
            "source_url": "https://makestagram.dev", "description": v1["description"]!,
            "usage": ["users": ["active_month": 0]], "languages": ["en"],
            "configuration": (v1["configuration"] as! [String: Any]).merging(
                ["urls": ["streaming": origin.replacingOccurrences(of: "http", with: "ws")]],
                uniquingKeysWith: { a, _ in a }),
            "registrations": ["enabled": true, "approval_required": false, "message": NSNull()],
            "contact": ["email": "", "account": NSNull()], "rules": [],
            "api_versions": ["mastodon": 2],
        ]
        return try OAuthController<S>.json(fields, status: .ok)
    }

    // MARK: Accounts

    func profile(_ context: AppRequestContext, viewer: Int64) async throws -> UserProfile {
        guard let profile = try await store.profile(id: try context.id("id", of: "account"), viewer: viewer) else {
            throw APIError.notFound("account")
        }
        return profile
    }

    @Sendable func verifyCredentials(_ request: Request, context: AppRequestContext) async throws
        -> MastodonResponse
    {
        let mapper = try mapper(request, context)
        guard let profile = try await store.profile(id: mapper.viewer, viewer: mapper.viewer) else {
            throw APIError.unauthorized
        }
        return try MastodonResponse(mapper.account(profile, withSource: true))
    }

    /// The profile fields a profile has: `display_name`, `note` (the bio) and `avatar` (a photo, multipart); the
    /// others Mastodon knows (header, fields, locked, bot, …) are ignored, as unsupported.
    @Sendable func updateCredentials(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        _ = try await core.profiles.edit(mapper.viewer) {
            var changes = ProfileChanges(bioField: "note")
            if request.headers[.contentType]?.lowercased().hasPrefix("multipart/form-data") == true {
                let form = try await MultipartForm.read(request, limit: maxUploadBytes)
                changes.displayName = try form.text("display_name")
                changes.bio = try form.text("note")
                changes.isPrivate = try form.text("locked").map(Self.flag)
                if let avatar = form.parts["avatar"], avatar.data.readableBytes > 0 {
                    changes.avatar = .photo(Data(buffer: avatar.data))
                }
            } else {
                let form = try await OAuthForm.read(request)
                changes.displayName = form.fields["display_name"]?.first
                changes.bio = form.fields["note"]?.first
                changes.isPrivate = form.fields["locked"]?.first.map(Self.flag)
            }
            // Mastodon's other fields (header, fields, bot, …) are not supported: a request of only those changes
            // nothing.
            return changes
        }
        guard let profile = try await store.profile(id: mapper.viewer, viewer: mapper.viewer) else {
            throw APIError.unauthorized
        }
        return try MastodonResponse(mapper.account(profile, withSource: true))
    }

    /// A form's boolean as Mastodon reads one (`true`, `1`, `on`; anything else is false).
    static func flag(_ value: String) -> Bool {
        ["true", "1", "on", "yes"].contains(value.lowercased())
    }

    @Sendable func account(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        return try MastodonResponse(mapper.account(try await profile(context, viewer: mapper.viewer)))
    }

    @Sendable func lookup(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        let raw = (try request.queryText("acct") ?? "").lowercased()
        let acct = raw.hasPrefix("@") ? String(raw.dropFirst()) : raw
        // Someone elsewhere this server knows (`bob@example.social`), or someone here (`alice`, or `alice@` this
        // server's host).
        if Limits.isRemoteUsername(acct), let profile = try await store.profile(username: acct, viewer: mapper.viewer) {
            return try MastodonResponse(mapper.account(profile))
        }
        let parts = acct.split(separator: "@", omittingEmptySubsequences: false)
        let host = URL(string: mapper.origin).flatMap { url in
            url.host(percentEncoded: false).map { host in url.port.map { "\(host):\($0)" } ?? host }
        }
        let username = String(parts.first ?? "")
        guard parts.count == 1 || (parts.count == 2 && String(parts[1]) == host), Limits.isValidUsername(username),
            let profile = try await store.profile(username: username, viewer: mapper.viewer)
        else { throw APIError.notFound("account") }
        return try MastodonResponse(mapper.account(profile))
    }

    @Sendable func searchAccounts(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        let query = try request.queryText("q") ?? ""
        guard !query.isEmpty, query.count <= 50 else { return try MastodonResponse([Mastodon.Account]()) }
        let limit = min(Int(request.uri.queryParameters.get("limit") ?? "") ?? 20, 40)
        let found = try await core.relationships.search(query, viewer: mapper.viewer, limit: max(limit, 1))
        return try MastodonResponse(try await mapper.accounts(found))
    }

    @Sendable func search(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let type = request.uri.queryParameters.get("type")
        var accounts: [Mastodon.Account] = []
        if type == nil || type == "accounts" {
            let mapper = try mapper(request, context)
            let query = (try request.queryText("q") ?? "").trimmingCharacters(in: .whitespaces)
            let name = query.hasPrefix("@") ? String(query.dropFirst()) : query
            if !name.isEmpty, query.count <= 300 {
                let found = try await core.relationships.search(query, viewer: mapper.viewer, limit: 20)
                accounts = try await mapper.accounts(found)
            }
        }
        return try MastodonResponse(Mastodon.SearchResults(accounts: accounts))
    }

    @Sendable func relationships(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        // `id[]=1&id[]=2`, its brackets percent-encoded or not, or `id=1`.
        let ids = request.uri.queryParameters.compactMap { pair -> Int64? in
            let name = String(pair.key).removingPercentEncoding
            return name == "id[]" || name == "id" ? Int64(String(pair.value)) : nil
        }
        var answers: [Mastodon.Relationship] = []
        for id in ids.prefix(40) { answers.append(try await mapper.relationship(id)) }
        return try MastodonResponse(answers)
    }

    @Sendable func accountStatuses(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        let profile = try await profile(context, viewer: mapper.viewer)
        let page = try MastodonPaging.request(request)
        guard let result = try await store.posts(username: profile.username, viewer: mapper.viewer, page: page) else {
            throw APIError.notFound("account")
        }
        return try MastodonResponse(
            try await mapper.statuses(result.items),
            link: MastodonPaging.link(
                request, origin: mapper.origin, next: result.nextKey, newest: result.items.first?.id))
    }

    func followList(_ request: Request, _ context: AppRequestContext, followers: Bool) async throws
        -> MastodonResponse
    {
        let mapper = try mapper(request, context)
        let profile = try await profile(context, viewer: mapper.viewer)
        var page = try MastodonPaging.request(request)
        if case .newerThan = page.position { page.position = .start }
        let result =
            followers
            ? try await store.followers(username: profile.username, viewer: mapper.viewer, page: page)
            : try await store.following(username: profile.username, viewer: mapper.viewer, page: page)
        guard let result else { throw APIError.notFound("account") }
        return try MastodonResponse(
            try await mapper.accounts(result.items),
            link: MastodonPaging.link(request, origin: mapper.origin, next: result.nextKey, newest: nil))
    }

    func follow(_ request: Request, _ context: AppRequestContext, following: Bool) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        let profile = try await profile(context, viewer: mapper.viewer)
        _ = try await core.relationships.follow(profile.username, by: mapper.viewer, following: following)
        return try MastodonResponse(try await mapper.relationship(profile.id))
    }

    /// `POST /api/v1/accounts/:id/mute` and `unmute`: the account's posts leave the home timeline and its
    /// notifications the list (Mastodon's `notifications` and `duration` are not offered: a mute is whole, until
    /// undone).
    func mute(_ request: Request, _ context: AppRequestContext, muting: Bool) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        let profile = try await profile(context, viewer: mapper.viewer)
        _ = try await core.relationships.mute(profile.username, by: mapper.viewer, muting: muting)
        return try MastodonResponse(try await mapper.relationship(profile.id))
    }

    /// `GET /api/v1/mutes`: the accounts the user mutes, most recently muted first.
    @Sendable func mutes(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        try await accountList(request, context) { try await store.mutes(viewer: $0, page: $1) }
    }

    /// A page of the accounts a relation of the user's names (mutes, blocks), most recent first.
    private func accountList(
        _ request: Request, _ context: AppRequestContext,
        read: (_ viewer: Int64, _ page: PageRequest) async throws -> PageResult<UserSummary>
    ) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        var page = try MastodonPaging.request(request)
        if case .newerThan = page.position { page.position = .start }
        let result = try await read(mapper.viewer, page)
        return try MastodonResponse(
            try await mapper.accounts(result.items),
            link: MastodonPaging.link(request, origin: mapper.origin, next: result.nextKey, newest: nil))
    }

    /// `POST /api/v1/accounts/:id/remove_from_followers`: the account stops following the user (or waiting to).
    @Sendable func removeFromFollowers(_ request: Request, context: AppRequestContext) async throws
        -> MastodonResponse
    {
        let mapper = try mapper(request, context)
        let profile = try await profile(context, viewer: mapper.viewer)
        try await core.relationships.removeFollower(profile.username, from: mapper.viewer)
        return try MastodonResponse(try await mapper.relationship(profile.id))
    }

    /// `POST /api/v1/accounts/:id/block` and `unblock`: neither sees nor reaches the other until the block is
    /// undone; the follows between them end.
    func block(_ request: Request, _ context: AppRequestContext, blocking: Bool) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        let profile = try await profile(context, viewer: mapper.viewer)
        _ = try await core.relationships.block(profile.username, by: mapper.viewer, blocking: blocking)
        return try MastodonResponse(try await mapper.relationship(profile.id))
    }

    /// `GET /api/v1/follow_requests`: the accounts waiting for the user to approve or reject their follow.
    @Sendable func followRequests(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        try await accountList(request, context) { try await store.followRequests(viewer: $0, page: $1) }
    }

    /// `POST /api/v1/follow_requests/:id/authorize` and `reject`.
    func answer(_ request: Request, _ context: AppRequestContext, approve: Bool) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        let profile = try await profile(context, viewer: mapper.viewer)
        try await core.relationships.answerRequest(from: profile.username, to: mapper.viewer, approve: approve)
        return try MastodonResponse(try await mapper.relationship(profile.id))
    }

    /// `GET /api/v1/blocks`: the accounts the user blocks, most recently blocked first.
    @Sendable func blocks(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        try await accountList(request, context) { try await store.blocks(viewer: $0, page: $1) }
    }

    /// `GET /api/v1/domain_blocks`: the servers the user blocks, as host names, all on one page.
    @Sendable func domainBlocks(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        return try MastodonResponse(try await core.relationships.domainBlocks(of: mapper.viewer))
    }

    /// `POST /api/v1/domain_blocks` and `DELETE`, `domain` in the form (or the query): the user blocks a server or
    /// stops; answers `{}`.
    func blockDomain(_ request: Request, _ context: AppRequestContext, blocking: Bool) async throws
        -> MastodonResponse
    {
        let mapper = try mapper(request, context)
        let query = try request.queryText("domain")
        let form = try await OAuthForm.read(request)
        guard let domain = form["domain"] ?? query else {
            throw APIError.invalidField(field: "domain", reason: "is required")
        }
        _ = try await core.relationships.blockDomain(domain, by: mapper.viewer, blocking: blocking)
        return try MastodonResponse([String: String]())
    }

    /// `POST /api/v1/reports` (`account_id`, `status_ids[]`, `comment`, `forward`): each status named, which must be
    /// the account's posts, is reported to the moderators (reports here are of posts: at least one is needed), and
    /// with `forward` a post from another server is reported to its server too.
    @Sendable func report(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        let form = try await OAuthForm.read(request)
        guard let accountID = form["account_id"].flatMap({ Int64($0) }),
            let account = try await store.profile(id: accountID, viewer: mapper.viewer)
        else { throw APIError.notFound("account") }
        let statusIDs = form.all("status_ids").compactMap { Int64($0) }
        guard !statusIDs.isEmpty, statusIDs.count <= 20 else {
            throw APIError.invalidField(field: "status_ids", reason: "must name 1 to 20 of the account's statuses")
        }
        let comment = form["comment"] ?? ""
        let forward = ["true", "1", "on"].contains(form["forward"]?.lowercased() ?? "")
        for id in statusIDs {
            guard let post = try await store.post(id: id, viewer: mapper.viewer), post.author.id == account.id else {
                throw APIError.notFound("status")
            }
        }
        for id in statusIDs {
            try await core.interactions.report(
                postID: id, by: mapper.viewer, reason: comment.isEmpty ? "Reported from a Mastodon app." : comment,
                forward: forward)
        }
        return try MastodonResponse(
            Mastodon.Report(
                id: "\(statusIDs[0])-\(mapper.viewer)", comment: comment,
                forwarded: forward && Limits.isRemoteUsername(account.username), createdAt: Date(),
                statusIds: statusIDs.map(String.init), targetAccount: mapper.account(account)))
    }

    // MARK: Statuses

    @Sendable func homeTimeline(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        let page = try MastodonPaging.request(request)
        let result = try await store.timeline(viewer: mapper.viewer, page: page)
        return try MastodonResponse(
            try await mapper.statuses(result.items),
            link: MastodonPaging.link(
                request, origin: mapper.origin, next: result.nextKey, newest: result.items.first?.id))
    }

    /// Public posts, newest first: this server's (`local=true`, Mastodon's "Local"), or with those kept from other
    /// servers ("Federated").
    @Sendable func publicTimeline(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        let page = try MastodonPaging.request(request)
        let local = ["true", "1"].contains(request.uri.queryParameters.get("local") ?? "")
        let result = try await store.publicPosts(local: local, viewer: mapper.viewer, page: page)
        return try MastodonResponse(
            try await mapper.statuses(result.items),
            link: MastodonPaging.link(
                request, origin: mapper.origin, next: result.nextKey, newest: result.items.first?.id))
    }

    /// A status ID: a post's number, or `c` and a comment's.
    enum StatusID {
        case post(Int64)
        case comment(Int64)
    }

    func statusID(_ context: AppRequestContext) throws -> StatusID {
        try Self.statusID(context.parameters.get("id") ?? "")
    }

    static func statusID(_ text: String) throws -> StatusID {
        if text.hasPrefix("c"), let id = Int64(text.dropFirst()), id > 0 { return .comment(id) }
        guard let id = Int64(text), id > 0 else { throw APIError.notFound("status") }
        return .post(id)
    }

    /// The comment a status ID names, with its post, as `viewer` may see them; 404 otherwise.
    func comment(_ id: Int64, viewer: Int64) async throws -> (Comment, Post) {
        guard let comment = try await store.comment(id: id, viewer: viewer),
            let post = try await store.post(id: comment.postId, viewer: viewer)
        else { throw APIError.notFound("status") }
        return (comment, post)
    }

    /// A comment as the status a Mastodon app shows: a reply to its post.
    func status(of comment: Comment, on post: Post, mapper: MastodonMapper<S>) async throws -> Mastodon.Status {
        guard let author = try await mapper.profiles([comment.author.id])[comment.author.id] else {
            throw APIError.notFound("status")
        }
        return mapper.status(comment, postAuthor: post.author.id, author: author)
    }

    func post(_ context: AppRequestContext, viewer: Int64) async throws -> Post {
        guard case .post(let id) = try statusID(context), let post = try await store.post(id: id, viewer: viewer)
        else { throw APIError.notFound("status") }
        return post
    }

    @Sendable func status(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        if case .comment(let id) = try statusID(context) {
            let (comment, post) = try await comment(id, viewer: mapper.viewer)
            return try MastodonResponse(try await status(of: comment, on: post, mapper: mapper))
        }
        let post = try await post(context, viewer: mapper.viewer)
        guard let status = try await mapper.statuses([post]).first else { throw APIError.notFound("status") }
        return try MastodonResponse(status)
    }

    @Sendable func createStatus(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        let form = try await OAuthForm.read(request)
        let text = form.fields["status"]?.first ?? ""
        let media = form.all("media_ids")
        if let reply = form["in_reply_to_id"] {
            // A reply is a comment on the post it answers, or on the post of the comment it answers.
            let post: Post
            switch try Self.statusID(reply) {
            case .post(let id):
                guard let found = try await store.post(id: id, viewer: mapper.viewer) else {
                    throw APIError.notFound("status")
                }
                post = found
            case .comment(let id):
                post = try await comment(id, viewer: mapper.viewer).1
            }
            guard media.isEmpty else {
                throw APIError.invalidField(field: "media_ids", reason: "replies are comments: they take no photo")
            }
            let created = try await core.interactions.comment(
                on: post.id, by: mapper.viewer, text: text, field: "status")
            guard let author = try await mapper.profiles([mapper.viewer])[mapper.viewer] else {
                throw APIError.unauthorized
            }
            return try MastodonResponse(mapper.status(created, postAuthor: post.author.id, author: author))
        }
        guard !media.isEmpty else {
            throw APIError.invalidField(
                field: "media_ids", reason: "a post is photos: upload each with POST /api/v2/media first")
        }
        try await checkVisibility(form["visibility"], of: mapper.viewer)
        guard media.count <= core.maxPhotosPerPost else {
            throw APIError.invalidField(
                field: "media_ids", reason: "a post holds at most \(core.maxPhotosPerPost) photos")
        }
        let uploads = try media.map { id in
            guard let upload = Int64(id) else { throw APIError.notFound("media") }
            return upload
        }
        let post = try await core.posting.create(
            by: mapper.viewer, fromUploads: uploads, caption: text, field: "media_ids")
        guard let status = try await mapper.statuses([post]).first else { throw APIError.notFound("status") }
        return try MastodonResponse(status)
    }

    /// Who sees a post here is its author's rule, not the post's: a private account's followers, or everyone. A
    /// `visibility` that would show the post to more people than asked (`private` from a public account) is refused
    /// rather than widened, as is `direct` (there are no direct messages here); `public` and `unlisted` from a private
    /// account are taken and shown to its followers only (fewer than asked, and the status says `private`).
    func checkVisibility(_ visibility: String?, of user: Int64) async throws {
        switch visibility {
        case nil, "public", "unlisted":
            return
        case "private":
            guard try await store.profile(id: user, viewer: user)?.isPrivate == true else {
                throw APIError.invalidField(
                    field: "visibility",
                    reason: "who sees a post is its account's rule: lock your account for followers-only posts")
            }
        case "direct":
            throw APIError.invalidField(field: "visibility", reason: "there are no direct messages here")
        default:
            throw APIError.invalidField(field: "visibility", reason: "public, unlisted, private or direct")
        }
    }

    /// `PUT /api/v1/statuses/:id`: edits a post's caption (`status`) and its photos' descriptions
    /// (`media_attributes[][id]` and `[description]` in pairs, as Mastodon does it). The photos themselves cannot be
    /// replaced, removed or reordered (`media_ids`, if sent, may name only the status's own); comments cannot be
    /// edited.
    @Sendable func editStatus(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        guard case .post(let id) = try statusID(context) else {
            throw APIError.invalidField(field: "id", reason: "replies are comments, which cannot be edited")
        }
        let form = try await OAuthForm.read(request)
        guard let text = form.fields["status"]?.first else {
            throw APIError.invalidField(field: "status", reason: "send the caption, even unchanged")
        }
        let post = try await post(context, viewer: mapper.viewer)
        let attachments = post.photos.indices.map { PostedMediaID(post: id, index: $0).description }
        // Mastodon.py sends only the IDs it describes: media_ids may name some of the status's own photos, nothing
        // else (an edit neither adds, removes nor reorders photos here).
        guard form.all("media_ids").allSatisfy(attachments.contains) else {
            throw APIError.invalidField(
                field: "media_ids", reason: "a post's photos cannot be replaced: name only the status's own")
        }
        let ids = form.all("media_attributes[][id]")
        let descriptions = form.all("media_attributes[][description]")
        guard ids.count == descriptions.count else {
            throw APIError.invalidField(field: "media_attributes", reason: "send an id with each description")
        }
        var altTexts: [Int: String] = [:]
        for (mediaID, description) in zip(ids, descriptions) {
            guard let photo = PostedMediaID(mediaID), photo.post == id, photo.index < post.photos.count else {
                throw APIError.invalidField(
                    field: "media_attributes", reason: "\(mediaID) is not an attachment of this status")
            }
            altTexts[photo.index] = description
        }
        var edited = try await core.posting.edit(
            postID: id, by: mapper.viewer, caption: text, hideLikeCount: nil, altText: altTexts[0])
        for (index, description) in altTexts.sorted(by: { $0.key < $1.key }) where index > 0 {
            edited = try await core.posting.edit(
                postID: id, by: mapper.viewer, caption: nil, hideLikeCount: nil, altText: description, photo: index)
        }
        guard let status = try await mapper.statuses([edited]).first else { throw APIError.notFound("status") }
        return try MastodonResponse(status)
    }

    @Sendable func deleteStatus(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        switch try statusID(context) {
        case .comment(let id):
            try await core.interactions.deleteComment(id, by: mapper.viewer)
            return try MastodonResponse([String: String]())
        case .post:
            let post = try await post(context, viewer: mapper.viewer)
            guard let status = try await mapper.statuses([post]).first else { throw APIError.notFound("status") }
            try await core.posting.delete(postID: post.id, by: mapper.viewer)
            return try MastodonResponse(status)
        }
    }

    @Sendable func context(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        if case .comment(let id) = try statusID(context) {
            // A comment's thread: the post it answers; comments here are not answered one by one.
            let (_, post) = try await comment(id, viewer: mapper.viewer)
            let ancestors = try await mapper.statuses([post])
            return try MastodonResponse(Mastodon.Context(ancestors: ancestors, descendants: []))
        }
        let post = try await post(context, viewer: mapper.viewer)
        var comments: [Comment] = []
        var page = PageRequest(limit: 100)
        while comments.count < 400,
            let result = try await store.comments(postID: post.id, viewer: mapper.viewer, page: page)
        {
            comments += result.items
            guard let next = result.nextKey else { break }
            page = PageRequest(position: .after(next), limit: 100)
        }
        let profiles = try await mapper.profiles(comments.map(\.author.id))
        let replies = comments.compactMap { comment in
            profiles[comment.author.id].map { mapper.status(comment, postAuthor: post.author.id, author: $0) }
        }
        return try MastodonResponse(Mastodon.Context(ancestors: [], descendants: replies))
    }

    func favourite(_ request: Request, _ context: AppRequestContext, liked: Bool) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        guard case .post(let id) = try statusID(context) else {
            throw APIError.invalidField(field: "id", reason: "comments cannot be favourited")
        }
        _ = try await core.interactions.like(postID: id, by: mapper.viewer, liked: liked)
        let post = try await post(context, viewer: mapper.viewer)
        guard let status = try await mapper.statuses([post]).first else { throw APIError.notFound("status") }
        return try MastodonResponse(status)
    }

    @Sendable func favouritedBy(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        guard case .post(let id) = try statusID(context) else { return try MastodonResponse([Mastodon.Account]()) }
        var page = try MastodonPaging.request(request)
        if case .newerThan = page.position { page.position = .start }
        guard let result = try await store.likers(postID: id, viewer: mapper.viewer, page: page) else {
            throw APIError.notFound("status")
        }
        return try MastodonResponse(
            try await mapper.accounts(result.items),
            link: MastodonPaging.link(request, origin: mapper.origin, next: result.nextKey, newest: nil))
    }

    // MARK: Media

    @Sendable func uploadMedia(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        let upload = try await core.posting.upload(by: mapper.viewer) {
            let form = try await MultipartForm.read(request, limit: maxUploadBytes)
            return NewPhoto(
                photo: Data(buffer: try form.photo("file")), caption: nil, altText: try form.text("description"))
        }
        return try MastodonResponse(mapper.attachment(id: String(upload.id), image: upload.photo.image))
    }

    /// `GET /api/v1/media/:id`: one of the user's photos, uploaded and not posted yet, or posted (``PostedMediaID``);
    /// an ID that is both names the upload, as `PUT` does.
    @Sendable func media(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        let raw = context.parameters.get("id") ?? ""
        let image =
            switch try await ownPhoto(raw, viewer: mapper.viewer) {
            case .upload(_, let photo): photo.image
            case .posted(let post, let index): post.photos[index]
            }
        return try MastodonResponse(mapper.attachment(id: raw, image: image))
    }

    /// A photo of the viewer's that a media ID names.
    enum OwnPhoto {
        /// Uploaded and not posted yet.
        case upload(id: Int64, StoredPhoto)
        /// Posted: the post and the photo's index in it.
        case posted(Post, index: Int)
    }

    /// The viewer's photo that `raw` names: an unposted upload's ID, or a posted photo's (``PostedMediaID``); an ID
    /// that is both names the upload. Throws `notFound("media")` for anything else, someone else's photo included.
    func ownPhoto(_ raw: String, viewer: Int64) async throws -> OwnPhoto {
        guard let posted = PostedMediaID(raw) else { throw APIError.notFound("media") }
        if posted.index == 0, let upload = try await store.mediaUpload(id: posted.post, userID: viewer) {
            return .upload(id: posted.post, upload)
        }
        guard let post = try await store.post(id: posted.post, viewer: viewer), post.author.id == viewer,
            posted.index < post.photos.count
        else { throw APIError.notFound("media") }
        return .posted(post, index: posted.index)
    }

    /// `DELETE /api/v1/media/:id`: forgets a photo uploaded and not posted (Mastodon 4.4); any other ID, a posted
    /// photo's too, answers 404.
    @Sendable func deleteMedia(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        guard let id = Int64(context.parameters.get("id") ?? "") else { throw APIError.notFound("media") }
        guard let upload = try await store.mediaUpload(id: id, userID: mapper.viewer) else {
            throw APIError.notFound("media")
        }
        try await core.posting.deleteUpload(id: id, by: mapper.viewer)
        return try MastodonResponse(mapper.attachment(id: String(id), image: upload.image))
    }

    /// `PUT /api/v1/media/:id`: changes a photo's description (its alt text; empty: none), before it is posted
    /// and, unlike Mastodon (which needs a status edit for that), after: a posted photo's ID is its status's for the
    /// first, `<status>-<n>` for the n-th of an album (``PostedMediaID``). An ID that is both one of the user's
    /// unposted uploads and one of their posts names the upload.
    @Sendable func updateMedia(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        let raw = context.parameters.get("id") ?? ""
        let photo = try await ownPhoto(raw, viewer: mapper.viewer)
        let form = try await OAuthForm.read(request)
        guard let description = form.fields["description"]?.first else {
            return try await media(request, context: context)
        }
        switch photo {
        case .upload(let id, _):
            let upload = try await core.posting.setUploadAltText(id: id, by: mapper.viewer, altText: description)
            return try MastodonResponse(mapper.attachment(id: raw, image: upload.image))
        case .posted(let post, let index):
            let edited = try await core.posting.edit(
                postID: post.id, by: mapper.viewer, caption: nil, hideLikeCount: nil, altText: description,
                photo: index)
            return try MastodonResponse(mapper.attachment(id: raw, image: edited.photos[index]))
        }
    }

    // MARK: Notifications

    @Sendable func notifications(_ request: Request, context: AppRequestContext) async throws -> MastodonResponse {
        let mapper = try mapper(request, context)
        var page = try MastodonPaging.request(request)
        if case .newerThan = page.position { page.position = .start }
        let result = try await store.activity(userID: mapper.viewer, page: page)
        let profiles = try await mapper.profiles(result.items.compactMap { $0.actors.first?.id })
        var notifications: [Mastodon.Notification] = []
        for group in result.items {
            if let notification = try await mapper.notification(group, profiles: profiles) {
                notifications.append(notification)
            }
        }
        return try MastodonResponse(
            notifications,
            link: MastodonPaging.link(request, origin: mapper.origin, next: result.nextKey, newest: nil))
    }
}

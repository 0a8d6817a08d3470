import Foundation
import Hummingbird
import MakestagramAPI
import MakestagramCore
import MakestagramStore

/// Profiles, user search, follows, mutes and blocks (translated onto ``Relationships``) and one user's posts.
struct UsersController<S: Store>: Sendable {
    let core: Core<S>
    /// Posts' JSON kept between pages.
    let rendered: RenderedPosts

    var store: S { core.store }

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("users", use: search)
        routes.get("me/suggestions", use: suggestions)
        routes.get("users/:username", use: profile)
        routes.put("users/:username/follow") { try await follow($0, $1, following: true) }
        routes.delete("users/:username/follow") { try await follow($0, $1, following: false) }
        routes.put("users/:username/mute") { try await mute($0, $1, muting: true) }
        routes.delete("users/:username/mute") { try await mute($0, $1, muting: false) }
        routes.get("me/mutes", use: mutes)
        routes.put("users/:username/block") { try await block($0, $1, blocking: true) }
        routes.delete("users/:username/block") { try await block($0, $1, blocking: false) }
        routes.get("me/blocks", use: blocks)
        routes.get("me/domain-blocks", use: domainBlocks)
        routes.put("me/domain-blocks/:domain") { try await blockDomain($0, $1, blocking: true) }
        routes.delete("me/domain-blocks/:domain") { try await blockDomain($0, $1, blocking: false) }
        routes.get("me/follow-requests", use: followRequests)
        routes.post("me/follow-requests/:username/approve") { try await answer($0, $1, approve: true) }
        routes.post("me/follow-requests/:username/decline") { try await answer($0, $1, approve: false) }
        routes.delete("me/followers/:username", use: removeFollower)
        routes.get("users/:username/followers", use: followers)
        routes.get("users/:username/following", use: following)
        routes.get("users/:username/posts", use: posts)
        return routes
    }

    /// People whose username or display name contains the query, ranked (``PeopleSearch``).
    @Sendable func search(_ request: Request, context: AppRequestContext) async throws -> Page<UserSummary> {
        let viewer = try context.requireUser()
        let raw = try request.queryText("query") ?? ""
        guard TextRules.controlCharacter(in: raw) == nil else {
            throw APIError.invalidParameter(name: "query", reason: "contains a control character")
        }
        let query = raw.trimmingCharacters(in: .whitespaces)
        guard !query.isEmpty, raw.unicodeScalars.count <= PeopleSearch.maximumLength else {
            throw APIError.invalidParameter(
                name: "query", reason: "give 1 to \(PeopleSearch.maximumLength) characters of a username or name")
        }
        let users = try await core.relationships.search(query, viewer: viewer.id, limit: try limit(request))
        return Page(items: try await store.markingFollows(users, viewer: viewer.id), nextCursor: nil)
    }

    /// People the viewer might follow; `for` names a profile being looked at, whose follows come first.
    @Sendable func suggestions(_ request: Request, context: AppRequestContext) async throws -> Page<UserSummary> {
        let viewer = try context.requireUser()
        var related: Int64?
        if let username = request.uri.queryParameters.get("for") {
            guard
                let profile = try await store.profile(
                    username: TextRules.normalizedUsername(username), viewer: viewer.id)
            else { throw APIError.notFound("user") }
            related = profile.id
        }
        let users = try await store.suggestedUsers(viewer: viewer.id, related: related, limit: try limit(request))
        return Page(items: try await store.markingFollows(users, viewer: viewer.id), nextCursor: nil)
    }

    /// The `limit` query parameter: 1 to ``Limits/maxPageSize``, ``Limits/defaultPageSize`` when absent.
    private func limit(_ request: Request) throws -> Int {
        guard let text = request.uri.queryParameters.get("limit") else { return Limits.defaultPageSize }
        guard let value = Int(text), (1...Limits.maxPageSize).contains(value) else {
            throw APIError.invalidParameter(name: "limit", reason: "must be a whole number from 1 to 100")
        }
        return value
    }

    @Sendable func profile(_ request: Request, context: AppRequestContext) async throws -> UserProfile {
        let viewer = try context.requireUser()
        guard let profile = try await store.profile(username: try context.username(), viewer: viewer.id) else {
            throw APIError.notFound("user")
        }
        return profile
    }

    func follow(_ request: Request, _ context: AppRequestContext, following: Bool) async throws -> FollowState {
        let viewer = try context.requireUser()
        return try await core.relationships.follow(try context.username(), by: viewer.id, following: following)
    }

    func mute(_ request: Request, _ context: AppRequestContext, muting: Bool) async throws -> MuteState {
        let viewer = try context.requireUser()
        return try await core.relationships.mute(try context.username(), by: viewer.id, muting: muting)
    }

    /// The people the viewer mutes, most recently muted first.
    @Sendable func mutes(_ request: Request, context: AppRequestContext) async throws -> Page<UserSummary> {
        let page = try request.pageRequest(list: "mutes")
        let viewer = try context.requireUser()
        let result = try await store.mutes(viewer: viewer.id, page: page)
        return try await store.markingFollows(result.forwardPage("mutes"), viewer: viewer.id)
    }

    func block(_ request: Request, _ context: AppRequestContext, blocking: Bool) async throws -> BlockState {
        let viewer = try context.requireUser()
        return try await core.relationships.block(try context.username(), by: viewer.id, blocking: blocking)
    }

    /// The people the viewer blocks, most recently blocked first.
    @Sendable func blocks(_ request: Request, context: AppRequestContext) async throws -> Page<UserSummary> {
        let page = try request.pageRequest(list: "blocks")
        let viewer = try context.requireUser()
        return try await store.blocks(viewer: viewer.id, page: page).forwardPage("blocks")
    }

    /// The servers the viewer blocks for themselves, in alphabetical order.
    @Sendable func domainBlocks(_ request: Request, context: AppRequestContext) async throws -> BlockedServers {
        BlockedServers(domains: try await core.relationships.domainBlocks(of: try context.requireUser().id))
    }

    func blockDomain(_ request: Request, _ context: AppRequestContext, blocking: Bool) async throws -> BlockedServers {
        let viewer = try context.requireUser()
        let domain = context.parameters.get("domain") ?? ""
        return BlockedServers(
            domains: try await core.relationships.blockDomain(domain, by: viewer.id, blocking: blocking))
    }

    /// Those who asked to follow the viewer's private account and wait for an answer, oldest first.
    @Sendable func followRequests(_ request: Request, context: AppRequestContext) async throws -> Page<UserSummary> {
        let page = try request.pageRequest(list: "requests")
        let viewer = try context.requireUser()
        return try await store.followRequests(viewer: viewer.id, page: page).forwardPage("requests")
    }

    func answer(_ request: Request, _ context: AppRequestContext, approve: Bool) async throws -> HTTPResponse.Status {
        let viewer = try context.requireUser()
        try await core.relationships.answerRequest(from: try context.username(), to: viewer.id, approve: approve)
        return .noContent
    }

    @Sendable func removeFollower(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let viewer = try context.requireUser()
        try await core.relationships.removeFollower(try context.username(), from: viewer.id)
        return .noContent
    }

    @Sendable func followers(_ request: Request, context: AppRequestContext) async throws -> Page<UserSummary> {
        let page = try request.pageRequest(list: "followers")
        let viewer = try context.requireUser()
        guard
            let result = try await store.followers(username: try context.username(), viewer: viewer.id, page: page)
        else {
            throw APIError.notFound("user")
        }
        return try await store.markingFollows(result.forwardPage("followers"), viewer: viewer.id)
    }

    @Sendable func following(_ request: Request, context: AppRequestContext) async throws -> Page<UserSummary> {
        let page = try request.pageRequest(list: "following")
        let viewer = try context.requireUser()
        guard
            let result = try await store.following(username: try context.username(), viewer: viewer.id, page: page)
        else {
            throw APIError.notFound("user")
        }
        return try await store.markingFollows(result.forwardPage("following"), viewer: viewer.id)
    }

    @Sendable func posts(_ request: Request, context: AppRequestContext) async throws -> WrittenJSON {
        let viewer = try context.requireUser()
        let page = try request.pageRequest(list: "posts")
        let lookup = try await rendered.lookup(for: viewer.id, store: store)
        guard
            let result = try await store.posts(
                username: try context.username(), viewer: viewer.id, page: page, known: lookup.known)
        else { throw APIError.notFound("user") }
        return try await rendered.page(result, list: "posts", viewer: viewer.id, lookup: lookup, store: store)
    }
}

import Foundation
import Hummingbird
import MakestagramAPI
import MakestagramStore

/// Profiles, user search, follows and one user's posts.
struct UsersController<S: Store>: Sendable {
    let store: S
    /// Posts' JSON kept between pages.
    let rendered: RenderedPosts
    let limits: ClientLimits

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("users", use: search)
        routes.get("users/:username", use: profile)
        routes.put("users/:username/follow") { try await follow($0, $1, following: true) }
        routes.delete("users/:username/follow") { try await follow($0, $1, following: false) }
        routes.get("users/:username/followers", use: followers)
        routes.get("users/:username/following", use: following)
        routes.get("users/:username/posts", use: posts)
        return routes
    }

    @Sendable func search(_ request: Request, context: AppRequestContext) async throws -> Page<UserSummary> {
        let raw = request.uri.queryParameters.get("query") ?? ""
        guard TextRules.controlCharacter(in: raw) == nil else {
            throw APIError.invalidParameter(name: "query", reason: "contains a control character")
        }
        let query = TextRules.normalizedUsername(raw)
        guard !query.isEmpty, raw.unicodeScalars.count <= Limits.usernameLength.upperBound else {
            throw APIError.invalidParameter(name: "query", reason: "give 1 to 30 characters of a username")
        }
        var limit = Limits.defaultPageSize
        if let text = request.uri.queryParameters.get("limit") {
            guard let value = Int(text), (1...Limits.maxPageSize).contains(value) else {
                throw APIError.invalidParameter(name: "limit", reason: "must be a whole number from 1 to 100")
            }
            limit = value
        }
        return Page(items: try await store.searchUsers(prefix: query, limit: limit), nextCursor: nil)
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
        try limits.take(.follows, user: viewer.id)
        return try await store.setFollow(viewer: viewer.id, username: try context.username(), following: following)
    }

    @Sendable func followers(_ request: Request, context: AppRequestContext) async throws -> Page<UserSummary> {
        let page = try request.pageRequest(list: "followers")
        guard let result = try await store.followers(username: try context.username(), page: page) else {
            throw APIError.notFound("user")
        }
        return result.forwardPage("followers")
    }

    @Sendable func following(_ request: Request, context: AppRequestContext) async throws -> Page<UserSummary> {
        let page = try request.pageRequest(list: "following")
        guard let result = try await store.following(username: try context.username(), page: page) else {
            throw APIError.notFound("user")
        }
        return result.forwardPage("following")
    }

    @Sendable func posts(_ request: Request, context: AppRequestContext) async throws -> WrittenJSON {
        let viewer = try context.requireUser()
        let page = try request.pageRequest(list: "posts")
        let epoch = store.renderEpoch
        guard
            let result = try await store.posts(
                username: try context.username(), viewer: viewer.id, page: page, known: rendered.known(epoch: epoch))
        else { throw APIError.notFound("user") }
        return try await rendered.page(result, list: "posts", viewer: viewer.id, epoch: epoch, store: store)
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import MakestagramAPI
import MakestagramStore

/// The moderators' routes: the reports queue, its actions and the moderation log. Everyone else gets 403 on every
/// one of them. Moderators are made on the server's machine (`makestagram admin grant USERNAME`).
struct ModerationController<S: Store>: Sendable {
    let store: S
    let media: any MediaStorage

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("moderation/reports", use: queue)
        routes.post("moderation/reports/:id/dismiss", use: dismiss)
        routes.post("moderation/posts/:id/remove", use: removePost)
        routes.post("moderation/users/:username/suspend") { try await suspend($0, $1, suspended: true) }
        routes.post("moderation/users/:username/unsuspend") { try await suspend($0, $1, suspended: false) }
        routes.get("moderation/log", use: log)
        return routes
    }

    /// The logged-in user, if they are a moderator (asked of the store on every request: a revoked moderator stops
    /// at once, on every instance).
    private func moderator(_ context: AppRequestContext) async throws -> UserSummary {
        let user = try context.requireUser()
        guard try await store.isModerator(userID: user.id) else {
            throw APIError.forbidden("Only moderators can do that.")
        }
        return user
    }

    /// The moderator's reason, from an optional JSON body (`{}` or none: no reason).
    private func reason(_ request: Request) async throws -> String {
        guard request.headers[.contentType] != nil else { return "" }
        let input = try await request.decodeJSON(ModerationRequest.self)
        guard let reason = input.reason, !reason.isEmpty else { return "" }
        return try TextInput.multiline(reason, field: "reason", length: Limits.moderationReasonLength)
    }

    @Sendable func queue(_ request: Request, context: AppRequestContext) async throws -> Page<ReportedPost> {
        let moderator = try await moderator(context)
        let page = try request.pageRequest(list: "reports")
        return try await store.reportQueue(viewer: moderator.id, page: page).forwardPage("reports")
    }

    @Sendable func dismiss(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let moderator = try await moderator(context)
        let postID = try context.id("id", of: "post")
        try await store.dismissReports(postID: postID, moderator: moderator.id, reason: try await reason(request))
        context.logger.notice("reports dismissed", metadata: ["post": "\(postID)", "moderator": "\(moderator.id)"])
        return .noContent
    }

    @Sendable func removePost(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let moderator = try await moderator(context)
        let postID = try context.id("id", of: "post")
        let files = try await store.removePost(
            postID: postID, moderator: moderator.id, reason: try await reason(request))
        media.remove(files)
        context.logger.notice("post removed", metadata: ["post": "\(postID)", "moderator": "\(moderator.id)"])
        return .noContent
    }

    func suspend(_ request: Request, _ context: AppRequestContext, suspended: Bool) async throws
        -> HTTPResponse.Status
    {
        let moderator = try await moderator(context)
        let username = context.parameters.get("username") ?? ""
        do {
            try await store.setSuspended(
                username: username, suspended: suspended, moderator: moderator.id, reason: try await reason(request))
        } catch StoreError.forbidden {
            throw APIError.forbidden("Moderators cannot suspend themselves or another moderator.")
        }
        context.logger.notice(
            suspended ? "user suspended" : "suspension lifted",
            metadata: ["username": "\(username)", "moderator": "\(moderator.id)"])
        return .noContent
    }

    @Sendable func log(_ request: Request, context: AppRequestContext) async throws -> Page<ModerationEntry> {
        _ = try await moderator(context)
        let page = try request.pageRequest(list: "moderation log")
        return try await store.moderationLog(page: page).forwardPage("moderation log")
    }
}

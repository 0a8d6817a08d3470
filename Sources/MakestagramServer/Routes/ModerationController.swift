import Foundation
import HTTPTypes
import Hummingbird
import MakestagramAPI
import MakestagramCore
import MakestagramFederation
import MakestagramStore

/// The moderators' routes: the reports queue, its actions and the moderation log. Everyone else gets 403 on every
/// one of them. Moderators are made on the server's machine (`makestagram admin grant USERNAME`). The actions
/// translate onto ``Moderation``.
struct ModerationController<S: Store>: Sendable {
    let core: Core<S>
    /// The ActivityPub side, when the server federates: its deliveries to other servers.
    var federation: Federation<S>? = nil

    var store: S { core.store }
    var moderation: Moderation<S> { core.moderation }

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("moderation/reports", use: queue)
        routes.post("moderation/reports/:id/dismiss", use: dismiss)
        routes.post("moderation/posts/:id/remove", use: removePost)
        routes.post("moderation/users/:username/suspend") { try await suspend($0, $1, suspended: true) }
        routes.post("moderation/users/:username/unsuspend") { try await suspend($0, $1, suspended: false) }
        routes.get("moderation/log", use: log)
        routes.get("moderation/domain-blocks", use: domainBlocks)
        routes.put("moderation/domain-blocks/:domain", use: blockDomain)
        routes.delete("moderation/domain-blocks/:domain", use: unblockDomain)
        routes.get("moderation/servers", use: servers)
        routes.post("moderation/servers/:server/retry", use: retryServer)
        routes.post("moderation/users/:username/rotate-key", use: rotateKey)
        return routes
    }

    /// The logged-in user, if they are a moderator.
    private func moderator(_ context: AppRequestContext) async throws -> UserSummary {
        try await moderation.moderator(try context.requireUser())
    }

    /// The moderator's reason, from an optional JSON body (`{}` or none: no reason).
    private func reason(_ request: Request) async throws -> String? {
        guard request.headers[.contentType] != nil else { return nil }
        return try await request.decodeJSON(ModerationRequest.self).reason
    }

    @Sendable func queue(_ request: Request, context: AppRequestContext) async throws -> Page<ReportedPost> {
        let moderator = try await moderator(context)
        let page = try request.pageRequest(list: "reports")
        return try await store.reportQueue(viewer: moderator.id, page: page).forwardPage("reports")
    }

    @Sendable func dismiss(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let user = try context.requireUser()
        let postID = try context.id("id", of: "post")
        try await moderation.dismissReports(postID: postID, by: user, reason: try await reason(request))
        context.logger.notice("reports dismissed", metadata: ["post": "\(postID)", "moderator": "\(user.id)"])
        return .noContent
    }

    @Sendable func removePost(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let user = try context.requireUser()
        let postID = try context.id("id", of: "post")
        try await moderation.removePost(postID, by: user, reason: try await reason(request))
        context.logger.notice("post removed", metadata: ["post": "\(postID)", "moderator": "\(user.id)"])
        return .noContent
    }

    func suspend(_ request: Request, _ context: AppRequestContext, suspended: Bool) async throws
        -> HTTPResponse.Status
    {
        let user = try context.requireUser()
        let username = context.parameters.get("username") ?? ""
        try await moderation.suspend(username, suspended: suspended, by: user, reason: try await reason(request))
        context.logger.notice(
            suspended ? "user suspended" : "suspension lifted",
            metadata: ["username": "\(username)", "moderator": "\(user.id)"])
        return .noContent
    }

    @Sendable func log(_ request: Request, context: AppRequestContext) async throws -> Page<ModerationEntry> {
        _ = try await moderator(context)
        let page = try request.pageRequest(list: "moderation log")
        return try await store.moderationLog(page: page).forwardPage("moderation log")
    }

    @Sendable func domainBlocks(_ request: Request, context: AppRequestContext) async throws -> ServerBlocks {
        _ = try await moderator(context)
        return ServerBlocks(blocks: try await store.domainBlocks())
    }

    @Sendable func blockDomain(_ request: Request, context: AppRequestContext) async throws -> ServerBlocks {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(DomainBlockRequest.self)
        let domain = context.parameters.get("domain") ?? ""
        let blocks = try await moderation.blockDomain(domain, severity: body.severity, by: user, reason: body.reason)
        context.logger.notice(
            "server blocked",
            metadata: ["domain": "\(domain)", "severity": "\(body.severity.rawValue)", "moderator": "\(user.id)"])
        return ServerBlocks(blocks: blocks)
    }

    @Sendable func unblockDomain(_ request: Request, context: AppRequestContext) async throws -> ServerBlocks {
        let user = try context.requireUser()
        let domain = context.parameters.get("domain") ?? ""
        let blocks = try await moderation.blockDomain(
            domain, severity: nil, by: user, reason: try await reason(request))
        context.logger.notice("server unblocked", metadata: ["domain": "\(domain)", "moderator": "\(user.id)"])
        return ServerBlocks(blocks: blocks)
    }
}

extension ModerationController {
    /// How deliveries to each other server go (none when the server does not federate).
    @Sendable func servers(_ request: Request, context: AppRequestContext) async throws -> DeliveryServers {
        _ = try await moderator(context)
        return DeliveryServers(servers: try await federation?.deliveryServers() ?? [])
    }

    /// Tries a server again now (it sent nothing, but its moderators say it is back): its waiting deliveries go.
    @Sendable func retryServer(_ request: Request, context: AppRequestContext) async throws -> DeliveryServers {
        let user = try await moderator(context)
        let server = (context.parameters.get("server") ?? "").lowercased()
        guard let federation, try await federation.deliveryServers().contains(where: { $0.server == server }) else {
            throw APIError.notFound("server")
        }
        let due = try await federation.retry(server: server)
        context.logger.notice(
            "server retried", metadata: ["server": "\(server)", "deliveries": "\(due)", "moderator": "\(user.id)"])
        return DeliveryServers(servers: try await federation.deliveryServers())
    }
}

extension ModerationController {
    /// Gives a person here a new signing key (the old one leaked, say); their followers' servers are sent it.
    @Sendable func rotateKey(_ request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let user = try await moderator(context)
        let username = (context.parameters.get("username") ?? "").lowercased()
        guard let federation else { throw APIError.notFound("user") }
        try await federation.rotateKey(of: username)
        context.logger.notice("key rotated", metadata: ["username": "\(username)", "moderator": "\(user.id)"])
        return .noContent
    }
}

extension ServerBlocks: ResponseEncodable {}
extension DeliveryServers: ResponseEncodable {}
extension BlockedServers: ResponseEncodable {}

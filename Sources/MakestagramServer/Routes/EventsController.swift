import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import MakestagramAPI
import MakestagramCore
import MakestagramLive
import MakestagramStore
import NIOCore
import NIOWebSocket

/// The live event stream, `GET /api/v1/events` (a WebSocket), and the tickets browsers open it with.
struct EventsController<S: Store>: Sendable {
    let core: Core<S>
    let hub: LiveHub
    let limits: ClientLimits
    /// How each connection is treated (queue limit, close grace, message budgets).
    let options: LiveOptions

    /// On the HTTP router, for a logged-in user.
    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.post("events/tickets", use: issueTicket)
        return routes
    }

    /// On the HTTP router, without authentication: reached by requests that do not ask for a WebSocket.
    var publicRoutes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("events") { _, _ -> Response in
            throw APIError.http(.upgradeRequired, "This is a WebSocket endpoint; connect with a WebSocket client.")
        }
        return routes
    }

    @Sendable func issueTicket(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<
        EventTicket
    > {
        let user = try context.requireUser()
        guard let tokenHash = context.tokenHash else { throw APIError.unauthorized }
        return EditedResponse(
            status: .created, response: try await core.accounts.issueTicket(user: user.id, tokenHash: tokenHash))
    }

    /// The router that upgrades authenticated requests to the stream (and to Mastodon's, `mastodon`).
    func webSocketRouter(mastodon: MastodonStreaming<S>) -> Router<LiveRequestContext> {
        let router = Router(context: LiveRequestContext.self)
        router.group("api/v1/streaming")
            .add(
                middleware: LiveAuthMiddleware(accounts: core.accounts, acceptsAccessToken: true, limits: limits)
            )
            .ws("") { inbound, outbound, context in
                try await mastodon.webSocket(inbound: inbound, outbound: outbound, context: context.requestContext)
            }
        router.group("api/v1/events")
            .add(middleware: LiveAuthMiddleware(accounts: core.accounts))
            .ws("") { inbound, outbound, context in
                try await session(inbound: inbound, outbound: outbound, context: context.requestContext)
            }
        return router
    }

    /// One socket: authenticated, within the user's socket allowance, then served by the live engine.
    func session(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, context: LiveRequestContext)
        async throws
    {
        guard let user = context.user, let tokenHash = context.tokenHash else {
            // A refused handshake could only answer a bare 400 (and browsers do not even show that), so the socket
            // opens and closes at once with a code that says what to do.
            try await outbound.close(
                WebSocketErrorCode(codeNumber: Int(LiveCloseCode.unauthorized)),
                reason: "send a valid bearer token, or a ticket from POST /api/v1/events/tickets")
            return
        }
        do {
            try limits.take(.sockets, user: user.id)
        } catch {
            return try await outbound.close(
                WebSocketErrorCode(codeNumber: Int(LiveCloseCode.tryAgainLater)),
                reason: "too many connections opened lately; reconnect later")
        }
        let store = core.store
        try await LiveSession(
            hub: hub, user: user, tokenHash: tokenHash, channel: context.channel, options: options,
            logger: context.logger, snapshots: { ids, viewer in try await store.posts(ids: ids, viewer: viewer) },
            partners: { user in try await store.blockPartners(of: user).ids }
        ).run(inbound: inbound, outbound: outbound)
    }
}

/// Authenticates a stream upgrade by bearer token or ticket; without either, the context has no user and the
/// socket is closed with ``LiveCloseCode/unauthorized`` as soon as it opens.
struct LiveAuthMiddleware<S: Store>: RouterMiddleware {
    typealias Context = LiveRequestContext
    let accounts: Accounts<S>
    /// Whether the token may also come as `?access_token=` (Mastodon's streaming).
    var acceptsAccessToken = false
    /// For the origin the client reached the server at (Mastodon's entities carry absolute URLs).
    var limits: ClientLimits?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var context = context
        let accessToken =
            acceptsAccessToken
            ? request.uri.queryParameters.get("access_token").map { String($0) } : nil
        if let token = BearerAuthMiddleware<S>.bearerToken(request.headers) ?? accessToken {
            let hash = SessionToken.hash(token)
            // An app's token needs a scope that allows reading posts; without it the socket closes as unauthorized.
            if let identity = try await accounts.authenticate(tokenHash: hash),
                identity.scopes.map({ (Scopes($0) ?? Scopes(values: [])).allows(RouteScopes.stream) }) ?? true
            {
                context.user = identity.user
                context.tokenHash = hash
            }
        } else if let ticket = request.uri.queryParameters.get("ticket"),
            let holder = try await accounts.redeemTicket(ticket)
        {
            context.user = holder.user
            context.tokenHash = holder.tokenHash
        }
        if let user = context.user { context.logger[metadataKey: "user"] = "\(user.id)" }
        context.origin = limits?.origin(of: request, peer: context.channel.remoteAddress)
        return try await next(request, context)
    }
}

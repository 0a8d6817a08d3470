import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import MakestagramAPI
import MakestagramStore
import NIOCore
import NIOWebSocket

/// The live event stream, `GET /api/v1/events` (a WebSocket), and the tickets browsers open it with.
struct EventsController<S: Store>: Sendable {
    let store: S
    let hub: LiveHub
    let tickets: EventTickets
    let limits: ClientLimits
    /// How many messages may wait for one client before it must resync.
    let queueLimit: Int
    /// How long a client being closed gets before its socket is cut.
    let closeGrace: Duration

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
        try limits.take(.tickets, user: user.id)
        let issued = tickets.issue(for: user, tokenHash: tokenHash)
        return EditedResponse(
            status: .created, response: EventTicket(ticket: issued.ticket, expiresAt: issued.expiresAt))
    }

    /// The router that upgrades authenticated requests to the stream.
    func webSocketRouter() -> Router<LiveRequestContext> {
        let router = Router(context: LiveRequestContext.self)
        router.group("api/v1/events")
            .add(middleware: LiveAuthMiddleware(store: store, tickets: tickets))
            .ws("") { inbound, outbound, context in
                try await session(inbound: inbound, outbound: outbound, context: context.requestContext)
            }
        return router
    }

    /// One socket, from hello to close: reads subscribe and unsubscribe messages while a writer task drains the
    /// connection's outbox.
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
        let connection = LiveConnection(
            user: user, tokenHash: tokenHash, queueLimit: queueLimit, channel: context.channel,
            closeGrace: .nanoseconds(Int64(closeGrace / .nanoseconds(1))))
        do {
            try limits.take(.sockets, user: user.id)
        } catch {
            return try await outbound.close(
                WebSocketErrorCode(codeNumber: Int(LiveCloseCode.tryAgainLater)),
                reason: "too many connections opened lately; reconnect later")
        }
        guard hub.register(connection, maxPerUser: limits.rates.maxSocketsPerUser) else {
            return try await outbound.close(
                WebSocketErrorCode(codeNumber: Int(LiveCloseCode.tryAgainLater)),
                reason: "at most \(limits.rates.maxSocketsPerUser) connections per user; close one first")
        }
        defer { hub.unregister(connection) }
        connection.send(
            .hello(
                LiveHello(protocol: LiveProtocol.version, user: user, maxSubscriptions: LiveProtocol.maxSubscriptions)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while let frames = await connection.nextFrames() {
                    for frame in frames {
                        try await outbound.write(
                            .custom(WebSocketFrame(fin: true, opcode: .text, data: WireFrame.payload(of: frame))))
                    }
                }
                if let close = connection.closeRequest {
                    try await outbound.close(WebSocketErrorCode(codeNumber: Int(close.code)), reason: close.reason)
                }
            }
            defer { connection.finish() }
            // The reading loop is one task: its budgets need no lock.
            var budget = MessageBudget(rates: limits.rates)
            for try await message in inbound.messages(maxSize: 64 * 1024) {
                try await handle(message, on: connection, budget: &budget, logger: context.logger)
            }
        }
    }

    private func handle(
        _ message: WebSocketMessage, on connection: LiveConnection, budget: inout MessageBudget, logger: Logger
    ) async throws {
        if let wait = budget.messages?.take() {
            return connection.send(.error(Self.slowDown(wait, "messages")))
        }
        let data: Data
        switch message {
        case .text(let text): data = Data(text.utf8)
        case .binary(let buffer): data = Data(buffer: buffer)
        }
        guard let command = try? JSONDecoder().decode(LiveClientMessage.self, from: data) else {
            connection.send(
                .error(
                    LiveError(
                        code: "bad_message",
                        detail: #"Send {"type":"subscribe","posts":[IDs]} or {"type":"unsubscribe","posts":[IDs]}."#)))
            return
        }
        switch command {
        case .subscribe(let ids):
            if let wait = budget.snapshots?.take(connection.unsubscribed(among: ids)) {
                return connection.send(.error(Self.slowDown(wait, "posts subscribed to")))
            }
            let (accepted, overCap) = connection.beginSubscribe(ids)
            if !overCap.isEmpty {
                connection.send(
                    .error(
                        LiveError(
                            code: "too_many_subscriptions",
                            detail:
                                "A connection follows at most \(LiveProtocol.maxSubscriptions) posts; unsubscribe first. "
                                + "Not subscribed: \(overCap.map(String.init).joined(separator: ", ")).")))
            }
            guard !accepted.isEmpty || overCap.isEmpty else { return }
            hub.subscribe(connection, to: accepted)
            let posts: [Post]
            do {
                posts = try await store.posts(ids: accepted, viewer: connection.user.id)
            } catch {
                logger.error("reading snapshots failed", metadata: ["error": "\(error)"])
                hub.unsubscribe(connection, from: connection.unsubscribe(accepted))
                connection.send(.error(LiveError(code: "internal_error", detail: "Subscribing failed; try again.")))
                return
            }
            let found = Set(posts.map(\.id))
            let unavailable = accepted.filter { !found.contains($0) }
            hub.unsubscribe(connection, from: unavailable)
            connection.completeSubscribe(found: posts, unavailable: unavailable)
        case .unsubscribe(let ids):
            hub.unsubscribe(connection, from: connection.unsubscribe(ids))
        }
    }
}

extension EventsController {
    /// The error that answers a message over its connection's budget; nothing was done.
    static func slowDown(_ wait: Duration, _ what: String) -> LiveError {
        LiveError(
            code: "rate_limited",
            detail: "Too many \(what) in a short time; nothing was done. Try again in \(wait.retryAfterSeconds) s.")
    }
}

/// What one connection may still send: subscribe and unsubscribe messages, and the snapshots subscribing costs.
struct MessageBudget {
    var messages: LocalRateLimit?
    var snapshots: LocalRateLimit?

    init(rates: RateLimits) {
        messages = rates.liveMessages.map { LocalRateLimit($0) }
        snapshots = rates.liveSnapshots.map { LocalRateLimit($0) }
    }
}

/// Authenticates a stream upgrade by bearer token or ticket; without either, the context has no user and the
/// socket is closed with ``LiveCloseCode/unauthorized`` as soon as it opens.
struct LiveAuthMiddleware<S: Store>: RouterMiddleware {
    typealias Context = LiveRequestContext
    let store: S
    let tickets: EventTickets

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var context = context
        if let token = BearerAuthMiddleware<S>.bearerToken(request.headers) {
            let hash = SessionToken.hash(token)
            if let user = try await store.sessionUser(tokenHash: hash) {
                context.user = user
                context.tokenHash = hash
            }
        } else if let ticket = request.uri.queryParameters.get("ticket"), let holder = tickets.redeem(ticket),
            try await store.sessionUser(tokenHash: holder.tokenHash) != nil
        {
            context.user = holder.user
            context.tokenHash = holder.tokenHash
        }
        if let user = context.user { context.logger[metadataKey: "user"] = "\(user.id)" }
        return try await next(request, context)
    }
}

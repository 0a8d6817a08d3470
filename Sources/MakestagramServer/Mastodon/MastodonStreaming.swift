import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import MakestagramAPI
import MakestagramLive
import MakestagramStore
import NIOCore
import NIOWebSocket

/// Mastodon's streaming API as server-sent events, `GET /api/v1/streaming/user`: `update` (a post entering the home
/// timeline), `notification` (a favourite, a reply, a mention or a follow), `delete` and `status.update`, with a heartbeat comment
/// every 15 seconds. It reads the live engine's committed changes through an ``EventTap``; the stream ends when the
/// token's session does (log-out, revoked app), when the account closes, or when the reader falls 1,000 events
/// behind.
struct MastodonStreaming<S: Store>: Sendable {
    let store: S
    let hub: LiveHub
    let limits: ClientLimits
    var heartbeat: Duration = .seconds(15)

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("streaming/user", use: user)
        routes.get("streaming/health") { _, _ in "OK" }
        return routes
    }

    enum Item: Sendable {
        case event(StoreEvent)
        case heartbeat
    }

    @Sendable func user(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        guard let tokenHash = context.tokenHash else { throw APIError.unauthorized }
        try limits.take(.sockets, user: user.id)
        let mapper = MastodonMapper(store: store, viewer: user.id, origin: limits.origin(of: request, context))
        guard let tap = hub.tap(user: user.id, tokenHash: tokenHash, maxPerUser: limits.rates.maxSocketsPerUser) else {
            // Counted with the user's event-stream sockets: one cap for every stream a user holds.
            throw APIError.rateLimited(
                what: "open streams (at most \(limits.rates.maxSocketsPerUser) per user; close one first)",
                retryAfter: 5)
        }
        // A client that goes away gives its place back at once, not at the next heartbeat that fails to write: the
        // server keeps a connection whose client closed its side (HTTP allows it), so the end of its input is watched.
        context.channel.closeFuture.whenComplete { [hub] _ in hub.untap(tap) }
        try? await context.channel.pipeline.addHandler(InputEndWatcher { [hub] in hub.untap(tap) }, position: .first)
            .get()
        let (items, continuation) = AsyncStream.makeStream(of: Item.self, bufferingPolicy: .bufferingNewest(10))
        let heartbeat = heartbeat
        let pump = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await event in tap.events { continuation.yield(.event(event)) }
                }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: heartbeat)
                        continuation.yield(.heartbeat)
                    }
                }
                await group.next()
                group.cancelAll()
            }
            continuation.finish()
        }
        let seen = try await Self.newestAction(of: user.id, store: store)
        let body = ResponseBody { [hub] writer in
            var mentions = seen
            defer {
                hub.untap(tap)
                pump.cancel()
            }
            try await writer.write(ByteBuffer(string: ":)\n\n"))
            for await item in items {
                switch item {
                case .heartbeat:
                    try await writer.write(ByteBuffer(string: ":thump\n\n"))
                case .event(let event):
                    tap.consumed()
                    for (name, payload) in try await Self.messages(for: event, mapper: mapper, mentions: &mentions) {
                        try await writer.write(ByteBuffer(string: "event: \(name)\ndata: \(payload)\n\n"))
                    }
                }
            }
            // The stream ended (log-out, revocation, closed account, or too far behind): the response ends with it.
            try await writer.finish(nil)
        }
        var headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store"]
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The ID of the newest action in the user's activity when a stream opens: mentions after it are announced.
    static func newestAction(of user: Int64, store: S) async throws -> Int64 {
        try await store.activity(userID: user, page: PageRequest(limit: 1)).items.first?.latestId ?? 0
    }

    /// The events and payloads Mastodon sends for a change, if it concerns the reader. `mentions` is the newest
    /// action of the reader's activity already accounted for: a change of their activity announces the mentions of
    /// them that arrived since (in a caption or in a comment on someone else's post; a comment on their own post is
    /// announced as it is made), oldest first.
    static func messages(for event: StoreEvent, mapper: MastodonMapper<S>, mentions: inout Int64) async throws
        -> [(String, String)]
    {
        if case .activityChanged(let user, _) = event {
            guard user == mapper.viewer else { return [] }
            let groups = try await mapper.store.activity(userID: user, page: PageRequest(limit: 20)).items
            let new = groups.filter { $0.kind == .mention && $0.latestId > mentions }
            mentions = max(mentions, groups.map(\.latestId).max() ?? mentions)
            let profiles = try await mapper.profiles(new.compactMap { $0.actors.first?.id })
            var messages: [(String, String)] = []
            for group in new.reversed() {
                guard let notification = try await mapper.notification(group, profiles: profiles) else { continue }
                messages.append(("notification", String(decoding: try Mastodon.encode(notification), as: UTF8.self)))
            }
            return messages
        }
        return try await message(for: event, mapper: mapper).map { [$0] } ?? []
    }

    /// The event and payload Mastodon sends for a change of a post, a like, a comment or a follow, if it concerns
    /// the reader.
    static func message(for event: StoreEvent, mapper: MastodonMapper<S>) async throws -> (String, String)? {
        func json<T: Encodable>(_ value: T) throws -> String {
            String(decoding: try Mastodon.encode(value), as: UTF8.self)
        }
        let viewer = mapper.viewer
        let store = mapper.store
        // Notifications of someone the reader mutes or blocks (or is blocked by) stay away, as they do from the list.
        let actor: Int64? =
            switch event {
            case .likeChanged(let change): change.actor.id
            case .commentCreated(let comment, _, _): comment.author.id
            case .followChanged(let follower, _, _): follower
            default: nil
            }
        if let actor, try await store.muted(by: viewer, among: [actor]).contains(actor) { return nil }
        if let actor, try await store.blockPartners(of: viewer).contains(actor) { return nil }
        switch event {
        case .postCreated(let post, _):
            guard let fresh = try await store.post(id: post.id, viewer: viewer),
                let status = try await mapper.statuses([fresh]).first
            else { return nil }
            return ("update", try json(status))
        case .postDeleted(let postID, _, _):
            return ("delete", String(postID))
        case .captionEdited(let postID, _, _, _), .imageChanged(let postID, _):
            guard let post = try await store.post(id: postID, viewer: viewer),
                let status = try await mapper.statuses([post]).first
            else { return nil }
            return ("status.update", try json(status))
        case .likeChanged(let change):
            guard let post = try await store.post(id: change.postID, viewer: viewer),
                let status = try await mapper.statuses([post]).first,
                let actor = try await mapper.profiles([change.actor.id])[change.actor.id]
            else { return nil }
            return (
                "notification",
                try json(
                    Mastodon.Notification(
                        id: "like-\(change.postID)-\(change.actor.id)-\(change.version)", type: "favourite",
                        createdAt: Date(), groupKey: "favourite-\(change.postID)", account: mapper.account(actor),
                        status: OrNull(status)))
            )
        case .commentCreated(let comment, _, _):
            guard comment.author.id != viewer, let post = try await store.post(id: comment.postId, viewer: viewer),
                post.author.id == viewer, let author = try await mapper.profiles([comment.author.id])[comment.author.id]
            else { return nil }
            let reply = mapper.status(comment, postAuthor: viewer, author: author)
            return (
                "notification",
                try json(
                    Mastodon.Notification(
                        id: "comment-\(comment.id)", type: "mention", createdAt: comment.createdAt,
                        groupKey: "mention-\(comment.id)", account: reply.account, status: OrNull(reply)))
            )
        case .followChanged(let follower, _, _):
            guard let profile = try await mapper.profiles([follower])[follower] else { return nil }
            return (
                "notification",
                try json(
                    Mastodon.Notification(
                        id: "follow-\(follower)-\(viewer)", type: "follow", createdAt: Date(),
                        groupKey: "follow-\(follower)", account: mapper.account(profile), status: nil))
            )
        default:
            return nil
        }
    }
}

extension MastodonStreaming {
    /// Mastodon's streaming API over a WebSocket, `GET /api/v1/streaming?stream=user` (the token as a bearer header or
    /// `access_token`): the `user` stream's events as
    /// `{"stream": ["user"], "event": …, "payload": "<JSON>"}`. Clients may also send
    /// `{"type": "subscribe", "stream": "user"}`; other streams are not offered.
    func webSocket(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, context: LiveRequestContext)
        async throws
    {
        guard let user = context.user, let tokenHash = context.tokenHash else {
            return try await outbound.close(
                WebSocketErrorCode(codeNumber: Int(LiveCloseCode.unauthorized)),
                reason: "send a valid access token with a scope that reads posts")
        }
        do {
            try limits.take(.sockets, user: user.id)
        } catch {
            return try await outbound.close(
                WebSocketErrorCode(codeNumber: Int(LiveCloseCode.tryAgainLater)), reason: "too many connections lately")
        }
        let origin = context.origin ?? "http://127.0.0.1"
        let mapper = MastodonMapper(store: store, viewer: user.id, origin: origin)
        guard let tap = hub.tap(user: user.id, tokenHash: tokenHash, maxPerUser: limits.rates.maxSocketsPerUser) else {
            return try await outbound.close(
                WebSocketErrorCode(codeNumber: Int(LiveCloseCode.tryAgainLater)),
                reason: "at most \(limits.rates.maxSocketsPerUser) streams per user; close one first")
        }
        defer { hub.untap(tap) }
        let seen = try await Self.newestAction(of: user.id, store: store)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var mentions = seen
                for await event in tap.events {
                    tap.consumed()
                    for (name, payload) in try await Self.messages(for: event, mapper: mapper, mentions: &mentions) {
                        let frame = try JSONSerialization.data(
                            withJSONObject: ["stream": ["user"], "event": name, "payload": payload],
                            options: [.sortedKeys])
                        try await outbound.write(.text(String(decoding: frame, as: UTF8.self)))
                    }
                }
                try await outbound.close(.normalClosure, reason: "stream ended")
            }
            // Subscriptions are to the user stream only; the socket lives as long as the client reads.
            for try await _ in inbound.messages(maxSize: 16 * 1024) {}
            group.cancelAll()
        }
    }
}

/// Calls `ended` when the client closes its side of the connection: a stream it can no longer read from ends then.
final class InputEndWatcher: ChannelInboundHandler, Sendable {
    typealias InboundIn = Any
    let ended: @Sendable () -> Void

    init(_ ended: @escaping @Sendable () -> Void) {
        self.ended = ended
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { ended() }
        context.fireUserInboundEventTriggered(event)
    }
}
